package spec_test

import (
	"testing"

	"github.com/repro-ml/repro/spec"
)

// The forms of an expectation: what decodes, and each bad combination
// reported once at its field.
func TestExpectForms(t *testing.T) {
	const head = `name: t
datasets: [{name: fake-blobs}]
methods: [{name: fake-centroid, label: a}, {name: fake-centroid, label: b}]
curve: {sizes: [10]}
metrics: [accuracy]
expect:
`
	good := []struct {
		name, entry string
		check       func(e spec.Expectation) bool
	}{
		{"significant", `{better: a, than: b, metric: accuracy, by: 1, significant: true, alpha: 0.01}`,
			func(e spec.Expectation) bool { return e.Significant && e.By == 1 && e.AlphaOr() == 0.01 }},
		{"default alpha", `{better: a, than: b, metric: accuracy, significant: true}`,
			func(e spec.Expectation) bool { return e.AlphaOr() == spec.DefaultAlpha }},
		{"at_par", `{better: a, than: b, metric: accuracy, at_par: true, within: 0.5}`,
			func(e spec.Expectation) bool { return e.AtPar && *e.Within == 0.5 }},
		{"non-inferiority", `{better: a, than: b, metric: accuracy, within: 0.5}`,
			func(e spec.Expectation) bool { return !e.AtPar && *e.Within == 0.5 }},
		{"wtl", `{metric: accuracy, wtl: {series: a, than: b, wins: 37, ties: 3, losses: 0}, slack: 2, alpha: 0.1}`,
			func(e spec.Expectation) bool {
				return e.WTL.Series == "a" && e.WTL.Than == "b" && *e.WTL.Wins == 37 && *e.WTL.Ties == 3 && *e.WTL.Losses == 0 && e.Slack == 2 && e.Alpha == 0.1
			}},
	}
	for _, tc := range good {
		// spec.yaml writes it back to the same expectation (losses: 0
		// included).
		t.Run(tc.name, func(t *testing.T) { expectRoundTrip(t, head+"  - "+tc.entry+"\n", tc.check) })
	}

	bad := []struct{ name, entry, want string }{
		{"at_par with by", `{better: a, than: b, metric: accuracy, at_par: true, by: 1}`,
			`t.yaml:7:62: expect[0].by: a margin to win by in a parity claim (at_par); want within (the largest gap) with at_par, or by without it`},
		{"significant with at_par", `{better: a, than: b, metric: accuracy, at_par: true, significant: true}`,
			`t.yaml:7:71: expect[0].significant: a significant win and a parity claim (at_par) at once; want one of them`},
		{"significant with within", `{better: a, than: b, metric: accuracy, significant: true, within: 1}`,
			`t.yaml:7:71: expect[0].within: a significant win with a margin to trail by; want by (the margin to win by) with significant, or within with at_par`},
		{"alpha without a test", `{better: a, than: b, metric: accuracy, alpha: 0.01}`,
			`t.yaml:7:51: expect[0].alpha: a significance level without a test; want significant: true or at_par: true beside it, or no alpha`},
		{"alpha 1", `{better: a, than: b, metric: accuracy, significant: true, alpha: 1}`,
			`t.yaml:7:70: expect[0].alpha: 1 is out of range; want float in (0, 1)`},
		{"alpha 0", `{better: a, than: b, metric: accuracy, significant: true, alpha: 0}`,
			`t.yaml:7:70: expect[0].alpha: 0 is out of range; want float in (0, 1)`},
		{"significant on a value check", `{method: a, metric: accuracy, min: 50, significant: true}`,
			`t.yaml:7:57: expect[0].significant: significant belongs to a relation; want better and than with it, or no significant`},
		{"slack on a relation", `{better: a, than: b, metric: accuracy, slack: 1}`,
			`t.yaml:7:51: expect[0].slack: slack belongs to a Win/Tie/Loss count; want wtl with it, or no slack`},
		{"wtl and relation", `{better: a, than: b, metric: accuracy, wtl: {series: a, than: b, wins: 1, ties: 0, losses: 0}}`,
			`t.yaml:7:5: expect[0]: more than one of a value check (method, value, min, max), a relation (better, than) and a Win/Tie/Loss count (wtl); want one of them per entry`},
		{"wtl without losses", `{metric: accuracy, wtl: {series: a, than: b, wins: 1, ties: 0}}`,
			`t.yaml:7:29: expect[0].wtl.losses: missing; want the paper's count of losses (0 if none)`},
		{"wtl against itself", `{metric: accuracy, wtl: {series: a, than: a, wins: 1, ties: 0, losses: 0}}`,
			`t.yaml:7:47: expect[0].wtl.than: "a" is compared with itself; want two different series`},
		{"wtl unknown series", `{metric: accuracy, wtl: {series: c, than: b, wins: 1, ties: 0, losses: 0}}`,
			`t.yaml:7:38: expect[0].wtl.series: unknown method "c"`},
		{"wtl with significant", `{metric: accuracy, wtl: {series: a, than: b, wins: 1, ties: 0, losses: 0}, significant: true}`,
			`t.yaml:7:93: expect[0].significant: significant belongs to a relation, not a Win/Tie/Loss count; want no significant`},
		{"wtl negative count", `{metric: accuracy, wtl: {series: a, than: b, wins: -1, ties: 0, losses: 0}}`,
			`t.yaml:7:56: expect[0].wtl.wins: -1 is out of range; want int in [0, +inf)`},
		{"unknown test", "{better: a, than: b, metric: accuracy}\nreport: {test: wilcoxn}",
			`t.yaml:8:16: report.test: unknown value "wilcoxn" (did you mean "wilcoxon"?); want one of t, corrected-t, wilcoxon`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) { oneParseError(t, head+"  - "+tc.entry+"\n", tc.want) })
	}
}

// expectRoundTrip parses src and checks its first expectation with check,
// as decoded and as read back from the resolved spec (spec.yaml).
func expectRoundTrip(t *testing.T, src string, check func(spec.Expectation) bool) {
	t.Helper()
	s, err := spec.Parse("t.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !check(s.Expect[0]) {
		t.Errorf("decoded %+v", s.Expect[0])
	}
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	s2, err := spec.Parse("spec.yaml", b, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if !check(s2.Expect[0]) {
		t.Errorf("read back %+v from\n%s", s2.Expect[0], b)
	}
}
