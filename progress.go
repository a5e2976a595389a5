package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/repro-ml/repro/runner"
)

// progress reports a run on stderr: a live bar with done/total and ETA on a
// terminal, plain periodic lines otherwise (CI logs).
type progress struct {
	w        io.Writer
	tty      bool
	mu       sync.Mutex
	total    int
	done     int
	failed   int
	skipped  int
	start    time.Time
	last     time.Time
	lastFrac int
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = os.Getenv("TERM") != "dumb"
		}
	}
	return p
}

func (p *progress) Start(total, done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.skipped = total, done
	p.start = time.Now()
	if done > 0 {
		fmt.Fprintf(p.w, "%d trials already done, %d to run\n", done, total)
	} else {
		fmt.Fprintf(p.w, "%d trials to run\n", total)
	}
}

func (p *progress) Done(r *runner.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if r.Failed() {
		p.failed++
	}
	now := time.Now()
	if p.tty {
		if now.Sub(p.last) >= 100*time.Millisecond || p.done == p.total {
			p.last = now
			fmt.Fprintf(p.w, "\r%s", p.bar(now))
		}
		return
	}
	// Plain lines: every 10% or every 30 seconds.
	frac := 0
	if p.total > 0 {
		frac = 10 * p.done / p.total
	}
	if frac > p.lastFrac || now.Sub(p.last) >= 30*time.Second || p.done == p.total {
		p.lastFrac, p.last = frac, now
		fmt.Fprintln(p.w, p.line(now))
	}
}

func (p *progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.total > 0 {
		fmt.Fprintln(p.w)
	}
}

func (p *progress) eta(now time.Time) string {
	if p.done == 0 || p.done >= p.total {
		return ""
	}
	el := now.Sub(p.start)
	left := time.Duration(float64(el) / float64(p.done) * float64(p.total-p.done))
	return " ETA " + left.Round(time.Second).String()
}

func (p *progress) line(now time.Time) string {
	s := fmt.Sprintf("%d/%d trials (%d%%) in %s%s", p.done, p.total, 100*p.done/max(p.total, 1),
		now.Sub(p.start).Round(time.Second), p.eta(now))
	if p.failed > 0 {
		s += fmt.Sprintf(", %d failed", p.failed)
	}
	return s
}

func (p *progress) bar(now time.Time) string {
	const width = 30
	fill := width * p.done / max(p.total, 1)
	b := "[" + strings.Repeat("=", fill)
	if fill < width {
		b += ">" + strings.Repeat(" ", width-fill-1)
	}
	return b + "] " + p.line(now) + "\033[K"
}
