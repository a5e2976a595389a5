package spec_test

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"testing"

	_ "github.com/repro-ml/repro/protocols/active" // registers the active protocol
	_ "github.com/repro-ml/repro/runner"           // registers the split kinds, select rules and the curve protocol
	"github.com/repro-ml/repro/spec"
)

var update = flag.Bool("update", false, "rewrite the generated tables of docs/spec.md and spec/fielddocs.go")

// The field tables of docs/spec.md are generated from the spec's
// declarations, between <!-- generated: KEY --> and <!-- end -->.
func TestSpecDoc(t *testing.T) {
	const path = "../docs/spec.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)(<!-- generated: ([^>]*?) -->\n)(.*?)(<!-- end -->)`)
	var errs []string
	out := block.ReplaceAllStringFunc(string(b), func(m string) string {
		sm := block.FindStringSubmatch(m)
		table, err := spec.SchemaDoc(sm[2])
		if err != nil {
			errs = append(errs, err.Error())
			return m
		}
		if sm[3] != table {
			errs = append(errs, fmt.Sprintf("block %q differs from the declarations:\n%s\nwant:\n%s", sm[2], sm[3], table))
		}
		return sm[1] + table + sm[4]
	})
	if n := len(block.FindAllString(string(b), -1)); n < 10 {
		t.Errorf("%d generated blocks in %s, want one per section and registry", n, path)
	}
	if *update {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, e := range errs {
		t.Error(e)
	}
	if len(errs) > 0 {
		t.Log("run go test ./spec -run TestSpecDoc -update to regenerate docs/spec.md")
	}
}
