package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/repro-ml/repro/results"
)

// progress reports a run on stderr: a live bar with done/total, failures
// and ETA on a terminal (redrawn in place, also between trials so that the
// clock moves), plain lines otherwise (CI logs, a file): one every 10% of
// the trials or every 30 seconds, and one at the end.
type progress struct {
	w        io.Writer
	tty      bool
	mu       sync.Mutex
	total    int
	workers  int // trials run at once (-j), 0 if unknown
	done     int
	failed   int
	start    time.Time
	lastDone time.Time // when the last trial finished
	lastLine time.Time // when the last plain line was printed
	lastFrac int
	printed  int  // trials done at the last plain line
	drawn    bool // the bar is on screen
	stop     chan struct{}
	stopped  chan struct{}
	now      func() time.Time
}

// tick is how often the bar is redrawn between trials.
const tick = time.Second

func newProgress(w io.Writer) *progress {
	return &progress{w: w, now: time.Now, tty: isTerminal(w)}
}

// isTerminal reports whether w is a terminal that can redraw a line.
func isTerminal(w io.Writer) bool {
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return os.Getenv("TERM") != "dumb"
		}
	}
	return false
}

// Start implements runner.Progress.
func (p *progress) Start(total, done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = total
	p.start = p.now()
	p.lastDone, p.lastLine = p.start, p.start
	switch {
	case done > 0 && total == 0:
		fmt.Fprintf(p.w, "all %d trials already done\n", done)
	case done > 0:
		fmt.Fprintf(p.w, "%d trials already done, %d to run\n", done, total)
	default:
		fmt.Fprintf(p.w, "%d trials to run\n", total)
	}
	if p.tty && total > 0 {
		p.draw()
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go p.ticker()
	}
}

func (p *progress) ticker() {
	defer close(p.stopped)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// Done implements runner.Progress.
func (p *progress) Done(r *results.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if r.Failed() {
		p.failed++
	}
	now := p.now()
	p.lastDone = now
	if p.tty {
		p.draw()
		return
	}
	frac := 0
	if p.total > 0 {
		frac = 10 * p.done / p.total
	}
	if frac > p.lastFrac || now.Sub(p.lastLine) >= 30*time.Second || p.done == p.total {
		p.lastFrac, p.lastLine, p.printed = frac, now, p.done
		fmt.Fprintln(p.w, p.line(now))
	}
}

// Finish implements runner.Progress: the bar is left on its own line, as
// last drawn (no trailing garbage), and a plain log gets a final line if
// the run stopped early.
func (p *progress) Finish() {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		if p.drawn {
			p.draw()
			fmt.Fprintln(p.w)
		}
		return
	}
	if p.done != p.printed {
		fmt.Fprintln(p.w, p.line(p.now()))
	}
}

func (p *progress) draw() {
	fmt.Fprintf(p.w, "\r%s\033[K", p.bar(p.now()))
	p.drawn = true
}

// minETATrials is the fewest finished trials an ETA is estimated from.
const minETATrials = 3

// etaAfter returns how many trials must finish before an ETA is shown: a
// few, and one per worker. The first trial to finish of N run at once
// took about as long as all N, so an estimate from it alone is N times
// too long ("1h7m0s" after one trial, of a run that took minutes).
func (p *progress) etaAfter() int {
	return max(minETATrials, min(p.workers, p.total))
}

// eta estimates the time left from the mean time per finished trial (wall
// time over trials done, so trials run at once count as such). On a
// terminal it counts down between trials; it is left out until etaAfter
// trials have finished, and when the estimate has run out (the remaining
// trials are slower than the finished ones, as larger training sizes are).
func (p *progress) eta(now time.Time) string {
	if p.done < p.etaAfter() || p.done >= p.total {
		return ""
	}
	per := float64(p.lastDone.Sub(p.start)) / float64(p.done)
	left := time.Duration(per*float64(p.total-p.done)) - now.Sub(p.lastDone)
	if left <= 0 {
		return ""
	}
	return ", ETA " + fmtDur(left)
}

// fmtDur rounds d for display: tenths of a second under 10 s, seconds
// under an hour, minutes above.
func fmtDur(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

func (p *progress) line(now time.Time) string {
	s := fmt.Sprintf("%d/%d trials (%d%%)", p.done, p.total, 100*p.done/max(p.total, 1))
	if p.failed > 0 {
		s += fmt.Sprintf(", %d failed", p.failed)
	}
	return s + ", " + fmtDur(now.Sub(p.start)) + p.eta(now)
}

func (p *progress) bar(now time.Time) string {
	const width = 30
	fill := width * p.done / max(p.total, 1)
	b := "[" + strings.Repeat("=", fill)
	if fill < width {
		b += ">" + strings.Repeat(" ", width-fill-1)
	}
	return b + "] " + p.line(now)
}
