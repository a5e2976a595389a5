package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// stderrKeep is how much of a program's stderr is kept (its end), and
// stderrLines how many of its last lines an error quotes.
const (
	stderrKeep  = 64 << 10
	stderrLines = 10
)

// waitDelay is how long a killed program's pipes may stay open (held by
// a child it started) before Wait gives up on them.
const waitDelay = 5 * time.Second

// ProgramError is the error of an external program that failed: it
// exited with a non-zero status, was killed at its timeout, or could not
// start.
type ProgramError struct {
	Phase    string   // "train" or "predict"
	Argv     []string // the expanded argument vector
	Status   int      // the exit status, -1 if it did not exit by itself
	Timeout  time.Duration
	TimedOut bool
	Stderr   string // the last lines of its stderr
	Err      error  // why it did not start or was stopped, if so
	answered bool   // a serve program answered the request with an error
}

func (e *ProgramError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s program %s", e.Phase, e.Argv[0])
	switch {
	case e.TimedOut:
		fmt.Fprintf(&b, " killed at its timeout of %v", e.Timeout)
	case e.Status >= 0:
		fmt.Fprintf(&b, " exited with status %d", e.Status)
	default:
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Stderr != "" {
		fmt.Fprintf(&b, "; its stderr ends:\n%s", e.Stderr)
	} else if e.Err == nil || e.TimedOut || e.Status >= 0 {
		b.WriteString(" (nothing on stderr)")
	}
	return b.String()
}

func (e *ProgramError) Unwrap() error { return e.Err }

// tail is an io.Writer keeping the last max bytes written to it.
type tail struct {
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// lastLines returns the last k non-empty lines of b, each indented.
func lastLines(b []byte, k int) string {
	lines := strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(b, []byte("?"))), "\n\r\t "), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < k; i-- {
		if l := strings.TrimRight(lines[i], "\r\t "); l != "" {
			keep = append(keep, "  "+l)
		}
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	return strings.Join(keep, "\n")
}

// run runs argv in dir with the environment env, stdin closed, its
// standard output written to stdout and its standard error kept in memory
// (its end), and kills it with every process it started at the timeout
// or when ctx is cancelled. It returns the program's wall time. A program
// is judged on its own exit: once it has exited with status 0, a child
// still holding its pipes does not fail it (on Linux the guard has killed
// that child anyway).
func run(ctx context.Context, phase string, argv []string, dir string, env []string, timeout time.Duration, stdout io.Writer) (float64, error) {
	errs := &tail{max: stderrKeep}
	fail := func(status int, timedOut bool, err error) *ProgramError {
		return &ProgramError{Phase: phase, Argv: argv, Status: status, Timeout: timeout, TimedOut: timedOut, Stderr: lastLines(errs.buf, stderrLines), Err: err}
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, argv[0], argv[1:]...)
	if cmd.Err != nil {
		return 0, fail(-1, false, cmd.Err)
	}
	cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, env, nil, stdout, errs
	cmd.WaitDelay = waitDelay
	guard(cmd)
	start := time.Now()
	err := cmd.Run()
	secs := time.Since(start).Seconds()
	if err == nil || errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		return secs, nil
	}
	if ctx.Err() != nil {
		return secs, ctx.Err()
	}
	if errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return secs, fail(-1, true, tctx.Err())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.Exited() {
		return secs, fail(exit.ExitCode(), false, nil)
	}
	return secs, fail(-1, false, err)
}

// environment returns the environment of a program: PATH as repro has
// it, TMPDIR set to dir, then the entries of env, each NAME (passed on
// from repro's environment when set there) or NAME=VALUE; a later entry
// replaces an earlier one of the same name.
func environment(env []string, dir string) []string {
	vals := map[string]string{"TMPDIR": dir}
	order := []string{"TMPDIR"}
	if p, ok := os.LookupEnv("PATH"); ok {
		vals["PATH"] = p
		order = append(order, "PATH")
	}
	for _, e := range env {
		name, val, literal := strings.Cut(e, "=")
		if !literal {
			v, ok := os.LookupEnv(name)
			if !ok {
				continue
			}
			val = v
		}
		if _, seen := vals[name]; !seen {
			order = append(order, name)
		}
		vals[name] = val
	}
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = k + "=" + vals[k]
	}
	return out
}
