package reports

import (
	"strings"
	"testing"
)

// report.artifacts leaves plots, tables or both out of report.md, and
// the report says how many and where they are.
func TestArtifactsOption(t *testing.T) {
	tests := []struct {
		artifacts   string
		plot, table bool
		note        string
	}{
		{"", true, true, ""},
		{"all", true, true, ""},
		{"plots", true, false, "2 tables of the methods' artifacts left out of this report (report.artifacts: plots)"},
		{"tables", false, true, "1 plot of the methods' artifacts left out of this report (report.artifacts: tables)"},
		{"none", false, false, "1 plot and 2 tables of the methods' artifacts left out of this report (report.artifacts: none); each trial's are in artifacts/ as JSON, listed in results.jsonl."},
	}
	for _, tt := range tests {
		t.Run(tt.artifacts, func(t *testing.T) {
			dir := t.TempDir()
			spec, rs := fixture(t, dir)
			spec.Report.Artifacts = tt.artifacts
			files, err := Render(dir, spec, rs)
			if err != nil {
				t.Fatal(err)
			}
			md := string(files[ReportFile])
			png := false
			for name := range files {
				png = png || strings.HasPrefix(name, "artifact-")
			}
			if plot := strings.Contains(md, "#### Regularization path"); plot != tt.plot || png != tt.plot {
				t.Errorf("plot shown %v, PNG written %v; want %v", plot, png, tt.plot)
			}
			if table := strings.Contains(md, "#### Coefficients"); table != tt.table {
				t.Errorf("table shown %v; want %v", table, tt.table)
			}
			if tt.note == "" && strings.Contains(md, "left out of this report") || !strings.Contains(md, tt.note) {
				t.Errorf("report.md says %q; want %q", section(md[strings.Index(md, "### Fit time"):]), tt.note)
			}
		})
	}
}
