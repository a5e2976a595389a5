package csv

import (
	"strconv"
	"strings"
	"testing"
)

// Columns left out of every declared group become one-column groups of
// group-penalized methods; the loader says so in a note for the report.
// Without declared groups there is nothing to say.
func TestUngroupedColumnsNote(t *testing.T) {
	const table = "crim,zn,indus,chas,nox,rm,medv\n1,2,3,0,5,6,24\n2,3,4,1,6,7,21\n"
	tests := []struct {
		groups map[string]string
		cat    []string
		want   string
	}{
		{map[string]string{"land": "zn,indus", "air": "nox"}, nil,
			"3 of 6 feature columns are in no declared group (crim, chas, rm): methods with group penalties take each as a one-column group"},
		{map[string]string{"land": "zn,indus,crim,rm", "air": "nox"}, []string{"chas"}, ""}, // chas=0, chas=1: a group of its own
		{map[string]string{"all": "crim,zn,indus,chas,nox"}, nil,
			"1 of 6 feature column is in no declared group (rm): methods with group penalties take each as a one-column group"},
		{nil, nil, ""},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		o.Label, o.Task, o.Groups, o.Categorical = "medv", TaskRegression, tt.groups, tt.cat
		d, err := Read(strings.NewReader(table), "housing.csv", o)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, n := range d.Notes {
			if strings.Contains(n, "no declared group") {
				got = n
			}
		}
		if got != tt.want {
			t.Errorf("groups %v: note %q, want %q", tt.groups, got, tt.want)
		}
	}
	// A long list is cut.
	var cols, row []string
	for i := 0; i < 30; i++ {
		cols, row = append(cols, "c"+strconv.Itoa(i)), append(row, "1")
	}
	o := DefaultOptions()
	o.Label, o.Task, o.Groups = "c29", TaskRegression, map[string]string{"g": "c0"}
	d, err := Read(strings.NewReader(strings.Join(cols, ",")+"\n"+strings.Join(row, ",")+"\n"+strings.Join(row, ",")+"\n"), "wide.csv", o)
	if err != nil {
		t.Fatal(err)
	}
	if n := d.Notes[len(d.Notes)-1]; !strings.HasPrefix(n, "28 of 29 feature columns are in no declared group (c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, and 18 more)") {
		t.Errorf("note %q", n)
	}
}
