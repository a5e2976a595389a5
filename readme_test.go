package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/protocols/active"
	"github.com/repro-ml/repro/spec"
)

// readmeBlock returns the text of README.md between the line that starts
// with "<!-- BEGIN name" and the line "<!-- END name -->", and the README
// with that text replaced by repl.
func readmeBlock(t *testing.T, readme, name, repl string) (block, replaced string) {
	t.Helper()
	begin := "<!-- BEGIN " + name
	end := "<!-- END " + name + " -->"
	i := strings.Index(readme, begin)
	j := strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q … %q block", begin, end)
	}
	i += strings.Index(readme[i:], "\n") + 1
	return readme[i:j], readme[:i] + repl + readme[j:]
}

// pluginIndex renders the README's plugin lists from the registries: a
// table of the methods (name, problem kinds, what it is), one of the
// datasets, and a line each for transforms, metrics, split kinds, select
// rules, protocols and query strategies. Plugins that this package's
// tests register (their doc ends in "(test fixture)") are left out: the
// binary users run has none.
func pluginIndex() string {
	var b strings.Builder
	b.WriteString("| method | handles | what |\n|---|---|---|\n")
	for _, name := range methods.Names() {
		if p, _ := methods.Lookup(name); !fixture(p.Doc) {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, p.Kinds, summary(p.Doc))
		}
	}
	b.WriteString("\n| dataset | what |\n|---|---|\n")
	for _, name := range datasets.Names() {
		if l, _ := datasets.Lookup(name); !fixture(l.Doc) {
			fmt.Fprintf(&b, "| `%s` | %s |\n", name, summary(l.Doc))
		}
	}
	b.WriteString("\n")
	line := func(what string, names []string) {
		fmt.Fprintf(&b, "- %s: `%s`\n", what, strings.Join(names, "`, `"))
	}
	var transforms []string
	for _, name := range datasets.TransformNames() {
		if tr, _ := datasets.LookupTransform(name); !fixture(tr.Doc) {
			transforms = append(transforms, name)
		}
	}
	line("Transforms", transforms)
	line("Metrics", metric.Names())
	line("Split kinds (`split: {kind: …}`)", spec.Splitters.Names())
	line("Select rules (`select: {rule: …}`)", spec.Selectors.Names())
	line("Protocols (`protocol:`)", spec.Protocols.Names())
	line("Query strategies (active learning)", active.Strategies.Names())
	return b.String()
}

// fixture reports whether a plugin's doc marks it as a test fixture.
func fixture(doc string) bool { return strings.HasSuffix(doc, "(test fixture)") }

// summary shortens a plugin's one-line doc for a table cell: its first
// clause (up to a "; " outside parentheses), cut at a word near 140
// characters, pipes escaped.
func summary(doc string) string {
	s := oneLine(doc)
	depth := 0
	for i, r := range s {
		if r == '(' {
			depth++
		} else if r == ')' {
			depth--
		} else if depth == 0 && strings.HasPrefix(s[i:], "; ") {
			s = s[:i]
			break
		}
	}
	if len(s) > 140 {
		cut := strings.LastIndex(s[:140], " ")
		if cut < 60 {
			cut = 140
		}
		s = strings.TrimRight(s[:cut], ",:") + " …"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// TestREADMEPlugins checks that the README's plugin lists are the
// registries' (go test -run TestREADMEPlugins -update . rewrites them).
func TestREADMEPlugins(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := pluginIndex()
	got, replaced := readmeBlock(t, string(raw), "plugins", want)
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile("README.md", []byte(replaced), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's plugin list differs from the registries; run go test -run TestREADMEPlugins -update .\ngot:\n%s\nwant:\n%s", got, want)
}

// TestREADMEQuickstart follows the README's first screen as a new user
// would: the spec it shows validates and runs as given, its accuracy
// table is the one the README prints, and the check passes. It also
// checks that the spec shown is experiments/quickstart.yaml less its
// description, notes and the expectation the README leaves out, so the
// two commands it gives run what it shows.
func TestREADMEQuickstart(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	for _, cmd := range []string{"go run . run experiments/quickstart.yaml", "go test -short ./..."} {
		if !strings.Contains(readme, "\n    "+cmd+"\n") {
			t.Errorf("README.md does not give the command %q on a line of its own", cmd)
		}
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README.md shows no yaml spec")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "quickstart.yaml")
	if err := os.WriteFile(file, []byte(m[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	mustCLI(t, exitOK, "validate", file)
	mustCLI(t, exitOK, "run", file, "-q", "-j", "2", "-o", out)
	stdout, _ := mustCLI(t, exitOK, "check", out)
	if !strings.Contains(stdout, "0 failed") {
		t.Errorf("check of the README's spec:\n%s", stdout)
	}
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	table, _ := readmeBlock(t, readme, "quickstart-table", "")
	if !strings.Contains(string(report), table) {
		t.Errorf("README.md's quickstart table is not in the report of its spec:\nREADME:\n%s\nreport.md:\n%s", table, report)
	}

	// The README's spec is the committed quickstart's: the same plan.
	shown, _ := mustCLI(t, exitOK, "validate", file)
	committed, _ := mustCLI(t, exitOK, "validate", filepath.Join("experiments", "quickstart.yaml"))
	if plan(shown) != plan(committed) {
		t.Errorf("the README's spec plans other trials than experiments/quickstart.yaml:\nREADME:\n%s\nexperiments/quickstart.yaml:\n%s", shown, committed)
	}
}

// plan returns the lines of validate's output that describe the plan
// (the fits), without the file names.
func plan(validate string) string {
	var keep []string
	for _, l := range strings.Split(validate, "\n") {
		if strings.Contains(l, "fits") || strings.Contains(l, "×") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
