package yamlpos

import (
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestCheckText(t *testing.T) {
	tests := []struct {
		name, data string
		max        int
		want       []Error
	}{
		{"clean", "a: 1\nb: [x, y]\n", 10, nil},
		{"nul", "a: 1\nb: x\x00y\n", 10, []Error{{File: "f.yaml", Line: 2, Column: 5}}},
		{"bad utf-8", "a: é\xff\n", 10, []Error{{File: "f.yaml", Line: 1, Column: 5}}},
		{"capped", "\x01\x01\x01\n", 2, []Error{{File: "f.yaml", Line: 1, Column: 1}, {File: "f.yaml", Line: 1, Column: 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CheckText("f.yaml", []byte(tc.data), tc.max)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %d errors", got, len(tc.want))
			}
			for i, e := range got {
				w := tc.want[i]
				if e.File != w.File || e.Line != w.Line || e.Column != w.Column || !strings.HasPrefix(e.Msg, "invalid YAML: ") {
					t.Errorf("error %d = %+v, want at %d:%d with an invalid YAML message", i, e, w.Line, w.Column)
				}
			}
		})
	}
}

// TestLocate checks that a syntax error yaml.v3 reports on the wrong line
// (or none) is located at the problem.
func TestLocate(t *testing.T) {
	tests := []struct {
		name, data string
		line       int
	}{
		{"unclosed flow sequence", "name: x\nsizes: [1, 2\nmetrics: [auc]\n", 2},
		{"unknown alias", "name: x\nsizes: *nope\n", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n yaml.Node
			err := yaml.Unmarshal([]byte(tc.data), &n)
			if err == nil {
				t.Fatal("yaml.v3 accepted it")
			}
			e := Locate("f.yaml", []byte(tc.data), err)
			if e.File != "f.yaml" || e.Line != tc.line || e.Column == 0 {
				t.Errorf("Locate = %+v, want line %d and a column", e, tc.line)
			}
		})
	}
}

func TestCheckAliases(t *testing.T) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("a: &x [1, 2, 3]\nb: *x\nc: *x\n"), &n); err != nil {
		t.Fatal(err)
	}
	size, e := CheckAliases("f.yaml", &n)
	if e != nil || size <= 0 {
		t.Errorf("CheckAliases = %d, %v; want a size and no error", size, e)
	}
	// A billion laughs: each level doubles the tree.
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x]\n")
	for i := 1; i <= 30; i++ {
		b.WriteString("l" + strconv.Itoa(i) + ": &l" + strconv.Itoa(i) + " [*l" + strconv.Itoa(i-1) + ", *l" + strconv.Itoa(i-1) + "]\n")
	}
	n = yaml.Node{}
	if err := yaml.Unmarshal([]byte(b.String()), &n); err != nil {
		t.Fatal(err)
	}
	if _, e := CheckAliases("f.yaml", &n); e == nil || e.Line == 0 {
		t.Errorf("an expansion past AliasBudget: error %v, want one at the alias", e)
	}
}
