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

// Issue 42: a table with missing values in a categorical column of 98
// values and in a numeric one gave 99 notes, one per dummy column. It
// gives one, naming each source column once.
func TestImputeOneNote(t *testing.T) {
	var b strings.Builder
	b.WriteString("colour,size,label\n")
	for i := 0; i < 98; i++ {
		size := strconv.Itoa(i)
		if i == 5 {
			size = "?"
		}
		b.WriteString("c" + strconv.Itoa(i) + "," + size + "," + strconv.Itoa(i%2) + "\n")
	}
	b.WriteString("?,?,1\n")
	o := DefaultOptions()
	o.Label, o.Task, o.Categorical, o.Missing = "label", TaskClassification, []string{"colour"}, MissingMean
	d, err := Read(strings.NewReader(b.String()), "t.csv", o)
	if err != nil {
		t.Fatal(err)
	}
	var imputed []string
	for _, n := range d.Notes {
		if strings.Contains(n, "missing value") {
			imputed = append(imputed, n)
		}
	}
	want := "3 missing values in 2 columns replaced by the column's mean over the training rows of each trial that have one (the means shown are over every row read): colour (1; each of its 98 dummy columns by its mean), size (2, mean 48.9485)"
	if len(imputed) != 1 || imputed[0] != want {
		t.Errorf("notes %q\nwant one: %q", imputed, want)
	}
}
