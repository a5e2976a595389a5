package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/repro-ml/repro/results"
)

// fakeClock advances by step on every reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(step); return t }
}

func TestProgressPlain(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf)
	p.now = fakeClock(time.Second)
	p.Start(20, 5)
	for i := 0; i < 20; i++ {
		r := &results.Result{}
		if i%7 == 0 {
			r.Error = "boom"
		}
		p.Done(r)
	}
	p.Finish()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if lines[0] != "5 trials already done, 20 to run" {
		t.Errorf("first line %q", lines[0])
	}
	// One line per 10%, the last one without an ETA.
	if len(lines) != 11 {
		t.Fatalf("%d lines, want 11:\n%s", len(lines), buf.String())
	}
	// Clock: Start reads it at t=1s, the k-th Done at t=1+k s: a second
	// per trial.
	// No ETA from fewer than minETATrials trials.
	if want := "2/20 trials (10%), 1 failed, 2.0s"; lines[1] != want {
		t.Errorf("line 1 = %q, want %q", lines[1], want)
	}
	if want := "4/20 trials (20%), 1 failed, 4.0s, ETA 16s"; lines[2] != want {
		t.Errorf("line 2 = %q, want %q", lines[2], want)
	}
	if want := "20/20 trials (100%), 3 failed, 20s"; lines[10] != want {
		t.Errorf("last line = %q, want %q", lines[10], want)
	}
	if strings.Contains(buf.String(), "\r") || strings.Contains(buf.String(), "\033") {
		t.Errorf("plain output has terminal controls: %q", buf.String())
	}
}

func TestProgressPlainInterrupted(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf)
	p.now = fakeClock(time.Second)
	p.Start(100, 0)
	for i := 0; i < 13; i++ {
		p.Done(&results.Result{})
	}
	p.Finish()
	if !strings.HasSuffix(buf.String(), "\n13/100 trials (13%), 14s, ETA 1m26s\n") {
		t.Errorf("no final line for a stopped run:\n%s", buf.String())
	}
}

func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf)
	p.tty = true
	p.now = fakeClock(time.Second)
	p.Start(4, 0)
	p.Done(&results.Result{Error: "x"})
	p.Done(&results.Result{})
	p.Done(&results.Result{})
	p.Done(&results.Result{})
	p.Finish()
	out := buf.String()
	frames := strings.Split(out, "\r")
	if frames[0] != "4 trials to run\n" {
		t.Errorf("header %q", frames[0])
	}
	// Every frame clears the rest of the line; the last ends the line.
	for _, f := range frames[1:] {
		if !strings.Contains(f, "\033[K") {
			t.Errorf("frame %q does not clear to the end of the line", f)
		}
	}
	// Start at t=1, its frame at t=2; the k-th Done at t=1+2k, its frame a
	// second later: 2 s per trial, and the ETA counts down from the last;
	// none before the third trial.
	if want := "[===============>              ] 2/4 trials (50%), 1 failed, 5.0s\033[K"; frames[3] != want {
		t.Errorf("frame 3 = %q, want %q", frames[3], want)
	}
	if want := "[======================>       ] 3/4 trials (75%), 1 failed, 7.0s, ETA 1.0s\033[K"; frames[4] != want {
		t.Errorf("frame 4 = %q, want %q", frames[4], want)
	}
	last := frames[len(frames)-1]
	if want := "[==============================] 4/4 trials (100%), 1 failed, 10s\033[K\n"; last != want {
		t.Errorf("final frame = %q, want %q", last, want)
	}
}

// With -j 8 the first trials finish together, each after as long as the
// eight took: an ETA from the first alone would be eight times too long.
// None is shown until one trial per worker has finished; then it is the
// wall time per trial done times the trials left.
func TestProgressETAWaitsForOneTrialPerWorker(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf)
	p.workers = 8
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	p.Start(400, 0)
	// 8 trials of 80 s each at once: all finish at 80 s.
	now = now.Add(80 * time.Second)
	var etas []string
	for i := 0; i < 8; i++ {
		p.Done(&results.Result{})
		etas = append(etas, p.eta(now))
	}
	for i, e := range etas[:7] {
		if e != "" {
			t.Errorf("ETA after %d of 8 parallel trials: %q, want none", i+1, e)
		}
	}
	// 80 s for 8 trials: 10 s a trial, 392 left.
	if want := ", ETA 1h5m0s"; etas[7] != want {
		t.Errorf("ETA after 8 trials %q, want %q", etas[7], want)
	}
	// A run of fewer trials than workers runs them all at once: the
	// first to finish say nothing of the others' time.
	p = newProgress(&buf)
	p.workers, p.now = 8, func() time.Time { return now }
	p.Start(5, 0)
	now = now.Add(30 * time.Second)
	for i := 0; i < 4; i++ {
		p.Done(&results.Result{})
	}
	if got := p.eta(now); got != "" {
		t.Errorf("ETA after 4 of 5 trials run at once: %q, want none", got)
	}
	// One worker: minETATrials.
	p = newProgress(&buf)
	p.workers, p.now = 1, func() time.Time { return now }
	p.Start(5, 0)
	now = now.Add(30 * time.Second)
	for i := 0; i < 3; i++ {
		p.Done(&results.Result{})
	}
	if got, want := p.eta(now), ", ETA 20s"; got != want {
		t.Errorf("ETA after 3 of 5 trials with -j 1: %q, want %q", got, want)
	}
}

func TestFmtDur(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0.0s"}, {450 * time.Millisecond, "0.5s"}, {9940 * time.Millisecond, "9.9s"},
		{95 * time.Second, "1m35s"}, {2*time.Hour + 29*time.Second, "2h0m0s"},
	} {
		if got := fmtDur(tt.d); got != tt.want {
			t.Errorf("fmtDur(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
