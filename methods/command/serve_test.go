package command

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/repro-ml/repro/param"
)

// noDescendants fails t if a process started by the test still runs once
// the serve programs are closed.
func noDescendants(t *testing.T) {
	t.Helper()
	closeServers()
	var left []int
	for _, p := range descendants(os.Getpid()) {
		if running(p.pid) {
			left = append(left, p.pid)
		}
	}
	if len(left) > 0 {
		t.Errorf("processes %v still run after the serve programs were closed", left)
	}
}

// One serve program serves the fits and predictions of several grid
// points, with the predictions of the programs run one by one.
func TestServe(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	d := binary(true)
	for _, C := range []string{"0.1", "1", "10"} {
		set := param.Values{"C": C,
			"train":   fake(t, "train", "{train}", "{model}", "-c{C}"),
			"predict": fake(t, "proba", "{test}", "{model}", "{predictions}")}
		want, err := newCommand(t, set).Fit(context.Background(), d, nil)
		if err != nil {
			t.Fatal(err)
		}
		set["serve"] = fake(t, "serve", starts)
		m := newCommand(t, set)
		got, err := m.Fit(context.Background(), d, nil)
		if err != nil {
			t.Fatalf("C=%s: Fit with serve: %v", C, err)
		}
		if !reflect.DeepEqual(got.(*model).file, want.(*model).file) {
			t.Errorf("C=%s: model %q with serve; want %q", C, got.(*model).file, want.(*model).file)
		}
		pg, err := got.(*model).PredictErr(d.X)
		if err != nil {
			t.Fatalf("C=%s: PredictErr with serve: %v", C, err)
		}
		pw, err := want.(*model).PredictErr(d.X)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pg, pw) {
			t.Errorf("C=%s: prediction %+v with serve; want %+v", C, pg, pw)
		}
	}
	if b, _ := os.ReadFile(starts); strings.Count(string(b), "start") != 1 {
		t.Errorf("the serve program started %d times for 3 fits and 3 predictions; want once", strings.Count(string(b), "start"))
	}
	noDescendants(t)
}

// A request the program answers with an error fails its fit with the
// message and keeps the program; junk, an exit or a timeout fails the
// fit, and the program is killed with its children.
func TestServeFailures(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	tests := []struct {
		name  string
		train []string
		serve []string
		want  string
	}{
		{"error answer", fake(t, "fail", "3", "{train}"), fake(t, "serve", starts), "serve program /bin/sh answered: fail exited with status 3"},
		{"error answer, program kept", fake(t, "fail", "3", "{train}"), fake(t, "serve", starts), "error line 12"},
		{"junk", fake(t, "train", "{train}", "{model}"), fake(t, "serve-junk"), `answered "hello"; want "ok" or "error: MESSAGE"`},
		{"exit", fake(t, "train", "{train}", "{model}"), fake(t, "serve-exit"), "exited (status 4) without answering"},
		{"timeout", append(fake(t, "sleep"), "{train}"), fake(t, "serve", starts), "killed at its timeout of 500ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			timeout := 30.0 // far above the machine's load
			if tt.name == "timeout" {
				timeout = 0.5
			}
			m := newCommand(t, param.Values{"timeout": timeout, "train": tt.train, "serve": tt.serve,
				"predict": fake(t, "predict", "{test}", "{predictions}")})
			_, err := m.Fit(context.Background(), binary(false), nil)
			var pe *ProgramError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Fit: %v; want a *ProgramError containing %q", err, tt.want)
			}
		})
	}
	// The program killed at the timeout is replaced.
	m := newCommand(t, param.Values{"train": fake(t, "train", "{train}", "{model}"), "serve": fake(t, "serve", starts),
		"predict": fake(t, "predict", "{test}", "{model}", "{predictions}")})
	if _, err := m.Fit(context.Background(), binary(false), nil); err != nil {
		t.Fatalf("Fit after the timeout: %v", err)
	}
	if b, _ := os.ReadFile(starts); strings.Count(string(b), "start") != 2 {
		t.Errorf("the serve program started %d times; want twice (once for the errors it answered and the timeout, once after it)", strings.Count(string(b), "start"))
	}
	noDescendants(t)
}

func TestValidateServe(t *testing.T) {
	for _, tt := range []struct {
		set  param.Values
		want string
	}{
		{param.Values{"serve": []string{"python3", "{workdir}/s.py", "{seed}"}, "predict": []string{"p", "{test}", "{predictions}"}},
			"serve[2]: {seed}: the serve program starts once for many fits; want only {workdir} and {dir}"},
		{param.Values{"serve": []string{"python3", "s.py"}, "predict": []string{"p", "{test}"}},
			"predict: no {predictions}, with serve"},
	} {
		p := param.Defaults(decls)
		p["train"] = []string{"t", "{train}"}
		for k, v := range tt.set {
			p[k] = v
		}
		err := plugin().Validate(p)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%v): %v; want %q", tt.set, err, tt.want)
		}
	}
}
