package command

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// fake returns the argument vector running the fake learner in mode.
func fake(t *testing.T, mode string, args ...string) []string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake learner is a POSIX shell script")
	}
	path, err := filepath.Abs("testdata/fake-learner.sh")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"/bin/sh", path, mode}, args...)
}

// plugin returns the registered command plugin, whose hooks decode the values
// they receive into a params.
func plugin() *methods.Plugin {
	pl, err := methods.Lookup("command")
	if err != nil {
		panic(err)
	}
	return pl
}

// newCommand builds the command method from the declared defaults and set.
func newCommand(t *testing.T, set param.Values) *method {
	t.Helper()
	p := param.Defaults(decls)
	for k, v := range set {
		p[k] = v
	}
	m, err := plugin().New(p)
	if err != nil {
		t.Fatalf("newMethod(%s): %v", p.Label(), err)
	}
	return m.(*method)
}

// binary is a two-class problem whose most frequent class is 1.
func binary(sparse bool) *datasets.Dataset {
	X := matrix.NewDense(5, 2, []float64{1, 0, 0, 1, 2, 0, 1, 1, 0, 3})
	var M matrix.Matrix = X
	if sparse {
		M = matrix.ToCSR(X)
	}
	return &datasets.Dataset{X: M, Y: []float64{1, 0, 1, 1, 0}, Classes: []string{"no", "yes"}}
}

func TestFitPredict(t *testing.T) {
	tests := []struct {
		name   string
		set    param.Values
		sparse bool
		data   *datasets.Dataset
		want   *methods.Prediction
	}{
		{name: "labels, libsvm, dense", set: param.Values{
			"train": fake(t, "train", "{train}", "{model}"), "predict": fake(t, "predict", "{test}", "{model}", "{predictions}")},
			data: binary(false), want: &methods.Prediction{K: 2, Scores: []float64{0, 1, 0, 1}}},
		{name: "labels, libsvm, sparse", set: param.Values{
			"train": fake(t, "train", "{train}", "{model}"), "predict": fake(t, "predict", "{test}", "{model}", "{predictions}")},
			data: binary(true), want: &methods.Prediction{K: 2, Scores: []float64{0, 1, 0, 1}}},
		{name: "probabilities", set: param.Values{
			"train": fake(t, "train", "{train}", "{model}"), "predict": fake(t, "proba", "{test}", "{model}", "{predictions}")},
			data: binary(false), want: &methods.Prediction{K: 2, Scores: []float64{0.25, 0.75, 0.25, 0.75}}},
		{name: "csv regression", set: param.Values{"format": "csv",
			"train": fake(t, "train", "{train}", "{model}"), "predict": fake(t, "predict", "{test}", "{model}", "{predictions}")},
			data: &datasets.Dataset{X: matrix.NewDense(3, 1, []float64{1, 2, 3}), Y: []float64{2.5, 2.5, 1}},
			want: &methods.Prediction{Values: []float64{2.5, 2.5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir())
			m := newCommand(t, tt.set)
			model, err := m.Fit(context.Background(), tt.data, &methods.Env{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			p, err := methods.Predict(model, tt.data.X.RowsOf([]int{0, 1}))
			if err != nil {
				t.Fatal(err)
			}
			if p.K != tt.want.K || !slices.Equal(p.Scores, tt.want.Scores) || !slices.Equal(p.Values, tt.want.Values) {
				t.Errorf("prediction K=%d scores %v values %v; want K=%d %v %v", p.K, p.Scores, p.Values, tt.want.K, tt.want.Scores, tt.want.Values)
			}
			if left, _ := os.ReadDir(os.Getenv("TMPDIR")); len(left) != 0 {
				t.Errorf("left in $TMPDIR after a fit and a prediction: %v", left)
			}
		})
	}
}

// The train program's error fails the fit with its exit status and the
// last lines of its stderr.
func TestProgramFails(t *testing.T) {
	m := newCommand(t, param.Values{"train": append(fake(t, "fail", "7"), "{train}"), "predict": fake(t, "predict", "{test}")})
	_, err := m.Fit(context.Background(), binary(false), &methods.Env{})
	var pe *ProgramError
	if !errors.As(err, &pe) {
		t.Fatalf("Fit: %v; want a *ProgramError", err)
	}
	if pe.Status != 7 || pe.TimedOut {
		t.Errorf("status %d, timed out %v; want 7, false", pe.Status, pe.TimedOut)
	}
	msg := err.Error()
	for _, want := range []string{"train program /bin/sh exited with status 7", "error line 3\n", "error line 12"} {
		if !strings.Contains(msg+"\n", want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "error line 2\n") {
		t.Errorf("error %q quotes more than the last %d lines", msg, stderrLines)
	}
}

// A program past its timeout is killed, with the child it started.
func TestTimeout(t *testing.T) {
	m := newCommand(t, param.Values{"timeout": 0.3, "train": append(fake(t, "sleep"), "{train}"), "predict": fake(t, "predict", "{test}")})
	start := time.Now()
	_, err := m.Fit(context.Background(), binary(false), &methods.Env{})
	var pe *ProgramError
	if !errors.As(err, &pe) || !pe.TimedOut {
		t.Fatalf("Fit: %v; want a timed-out *ProgramError", err)
	}
	if d := time.Since(start); d > waitDelay-time.Second {
		t.Errorf("Fit returned after %v: the sleeping child was not killed with the program", d)
	}
	if !strings.Contains(err.Error(), "killed at its timeout of 300ms") {
		t.Errorf("error %q does not say the timeout", err)
	}
}

// A cancelled context stops the program and is the fit's error.
func TestCancel(t *testing.T) {
	m := newCommand(t, param.Values{"train": append(fake(t, "sleep"), "{train}"), "predict": fake(t, "predict", "{test}")})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := m.Fit(ctx, binary(false), &methods.Env{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Fit: %v; want the context's error", err)
	}
}

// The program sees PATH, TMPDIR and what env declares, nothing else.
func TestEnvironment(t *testing.T) {
	t.Setenv("REPRO_TEST_SECRET", "s3cret")
	t.Setenv("REPRO_TEST_PASSED", "passed")
	m := newCommand(t, param.Values{"env": []string{"REPRO_TEST_PASSED", "OMP_NUM_THREADS=1", "REPRO_TEST_UNSET"},
		"train": fake(t, "env", "{model}", "{train}"), "predict": fake(t, "predict", "{test}")})
	fitted, err := m.Fit(context.Background(), binary(false), &methods.Env{})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, l := range strings.Split(string(fitted.(*model).file), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			env[k] = v
		}
	}
	for k, want := range map[string]string{"REPRO_TEST_PASSED": "passed", "OMP_NUM_THREADS": "1", "PATH": os.Getenv("PATH")} {
		if env[k] != want {
			t.Errorf("%s=%q in the program's environment; want %q", k, env[k], want)
		}
	}
	if !strings.Contains(env["TMPDIR"], tempPrefix) {
		t.Errorf("TMPDIR=%q; want the fit's directory", env["TMPDIR"])
	}
	for _, k := range []string{"REPRO_TEST_SECRET", "REPRO_TEST_UNSET", "HOME", "GORACE", "REPRO_COMMAND_GUARD"} {
		if v, ok := env[k]; ok {
			t.Errorf("%s=%q reached the program; want it stripped", k, v)
		}
	}
}

// Each fit runs in a directory of its own, removed afterwards.
func TestFitDirectory(t *testing.T) {
	m := newCommand(t, param.Values{"train": fake(t, "dir", "{model}", "{train}"), "predict": fake(t, "predict", "{test}")})
	var dirs []string
	for range 2 {
		fitted, err := m.Fit(context.Background(), binary(false), &methods.Env{})
		if err != nil {
			t.Fatal(err)
		}
		out := strings.Fields(string(fitted.(*model).file))
		if len(out) < 2 || !strings.Contains(strings.Join(out[1:], " "), "train.libsvm") {
			t.Fatalf("the program saw %q; want its directory and the training file in it", out)
		}
		dirs = append(dirs, out[0])
		if _, err := os.Stat(out[0]); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the fit's directory %s is still there (%v)", out[0], err)
		}
	}
	if dirs[0] == dirs[1] {
		t.Errorf("two fits ran in the same directory %s", dirs[0])
	}
}

// Placeholders are expanded: grid names, {seed} in [0, 2³¹), {workdir}.
func TestPlaceholders(t *testing.T) {
	m := newCommand(t, param.Values{"C": "0.5", "train": fake(t, "args", "{model}", "-c{C}", "{seed}", "{workdir}", "{{x}}", "{train}"),
		"predict": fake(t, "predict", "{test}")})
	fitted, err := m.Fit(context.Background(), binary(false), &methods.Env{Seed: 1<<64 - 1})
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSpace(string(fitted.(*model).file)), "\n")
	wd, _ := os.Getwd()
	want := []string{"-c0.5", strconv.Itoa(1<<31 - 1), wd, "{x}"}
	if len(args) != 5 || strings.Join(args[:4], " ") != strings.Join(want, " ") || !strings.HasSuffix(args[4], "/train.libsvm") {
		t.Errorf("arguments %q; want %q and the training file", args, want)
	}
}

func TestValidate(t *testing.T) {
	tr := []string{"liblinear-train", "-c", "{C}", "{train}", "{model}"}
	pr := []string{"liblinear-predict", "{test}", "{model}", "{predictions}"}
	tests := []struct {
		name string
		set  param.Values
		want []string // "param[elem]: message part", in order
	}{
		{"valid", param.Values{"C": "1", "train": tr, "predict": pr}, nil},
		{"unknown placeholder", param.Values{"C": "1", "train": []string{"t", "-c", "{c}", "{train}", "{model}"}, "predict": pr},
			[]string{"train[2]: unknown placeholder {c} (did you mean {C}?)", "C: unused: neither train nor predict has {C}"}},
		{"grid name missing", param.Values{"train": tr, "predict": pr},
			[]string{"train[2]: unknown placeholder {C}; want one of {train}, {model}, {dir}, {seed}, {workdir}, or a param of the grid named C"}},
		{"unused grid name", param.Values{"C": "1", "gamma": "2", "train": tr, "predict": pr},
			[]string{"gamma: unused: neither train nor predict has {gamma}"}},
		{"typo of a declared param", param.Values{"C": "1", "timout": "2", "train": tr, "predict": pr},
			[]string{`timout: unused: neither train nor predict has {timout} (did you mean "timeout"?)`}},
		{"built-in name as grid name", param.Values{"C": "1", "seed": "3", "train": tr, "predict": pr},
			[]string{"seed: is the built-in placeholder {seed}"}},
		{"phase-only placeholder", param.Values{"C": "1", "train": append(tr, "{test}"), "predict": pr},
			[]string{"train[5]: {test} is a placeholder of predict only"}},
		{"no {train}", param.Values{"train": []string{"t"}, "predict": []string{"p", "{test}"}},
			[]string{"train: no {train}"}},
		{"model not written", param.Values{"train": []string{"t", "{train}"}, "predict": pr},
			[]string{"predict: reads {model}, which train does not write"}},
		{"unclosed brace", param.Values{"C": "1", "train": append(tr, "{C"), "predict": pr},
			[]string{`train[5]: "{C" has an unclosed {`}},
		{"relative program", param.Values{"C": "1", "train": append([]string{"./train.sh"}, tr[1:]...), "predict": pr},
			[]string{`train[0]: program "./train.sh" is a relative path`}},
		{"bad env", param.Values{"C": "1", "train": tr, "predict": pr, "env": []string{"A-B=1"}},
			[]string{`env[0]: "A-B=1" is not NAME or NAME=VALUE`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := param.Defaults(decls)
			for k, v := range tt.set {
				p[k] = v
			}
			err := plugin().Validate(p)
			var got []string
			for _, e := range joined(err) {
				got = append(got, e.Error())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("validate: %q; want %d errors %q", got, len(tt.want), tt.want)
			}
			for i, e := range joined(err) {
				if _, ok := e.(*param.InvalidError); !ok {
					t.Errorf("error %d is a %T, not a *param.InvalidError", i, e)
				}
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("error %d: %q; want it to start with %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// joined returns the errors err joins.
func joined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return nil
}

func TestMemory(t *testing.T) {
	s := methods.Shape{Rows: 1000, Cols: 100, NNZ: 5000, Classes: 3, Test: 500}
	p := param.Defaults(decls)
	est := plugin().Memory(s, p)
	if min := methods.Floats(5000, 2); est < min {
		t.Errorf("estimate %d bytes; want at least liblinear's copy of the rows, %d", est, min)
	}
	p["memory_mb"] = 2000.0
	if got := plugin().Memory(s, p); got < 2e9 || got > 2e9+1e6 {
		t.Errorf("estimate with memory_mb 2000: %d bytes; want 2 GB and repro's own buffers (under 1 MB here)", got)
	}
}
