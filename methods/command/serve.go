package command

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// The serve protocol. With serve set, repro starts the serve program once
// and sends it every fit and every prediction of the method instead of
// running train and predict: for each, one line on the program's standard
// input holding the expanded argument vector as a JSON array of strings —
// exactly the train or predict command it would have run, its files in a
// fresh directory named by absolute paths — and the program answers with
// one line on its standard output: "ok" once it has written the model
// (or the predictions file), or "error: MESSAGE", which fails the trial
// with MESSAGE. A program serves one request at a time, each as a fresh
// process would (the seed is in the arguments); its own messages belong
// on standard error. When its standard input is closed it exits.
//
// A serve program is kept between fits and trials (one per method
// configuration and concurrent fit) and stopped once idle for
// serveIdle; one that exceeds timeout in a request, answers anything
// else or exits is killed and a new one started for the next request.

// serveIdle is how long an idle serve program is kept.
const serveIdle = 5 * time.Second

// answerMax is the longest answer line read from a serve program.
const answerMax = 64 << 10

// server is a running serve program.
type server struct {
	key    string
	argv   []string
	cancel context.CancelFunc // kills it (and what it started)
	in     io.WriteCloser
	out    *bufio.Reader
	errs   *syncTail
	done   chan struct{} // closed once it has exited
	status int           // its exit status once done, -1 if killed
	idle   time.Time     // when it was last released
}

// servers are the idle serve programs, by key.
var servers struct {
	sync.Mutex
	idle    map[string][]*server
	janitor bool
}

// serveKey identifies the serve programs a method may share: the same
// argument vector, environment and working directory.
func (m *method) serveKey() string {
	wd, _ := os.Getwd()
	return strings.Join(m.serve, "\x00") + "\x01" + strings.Join(m.env, "\x00") + "\x01" + wd
}

// request runs argv, a train or predict argument vector, as a request to
// a serve program, and returns its wall time.
func (m *method) request(ctx context.Context, phase string, argv []string) (float64, error) {
	s, err := m.acquire()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	err = s.do(ctx, phase, argv, m.timeout)
	secs := time.Since(start).Seconds()
	var pe *ProgramError
	if err == nil || errors.As(err, &pe) && pe.answered {
		release(s)
	} else {
		s.kill()
	}
	return secs, err
}

// acquire returns an idle serve program of m's, or starts one.
func (m *method) acquire() (*server, error) {
	key := m.serveKey()
	servers.Lock()
	if l := servers.idle[key]; len(l) > 0 {
		s := l[len(l)-1]
		servers.idle[key] = l[:len(l)-1]
		servers.Unlock()
		select {
		case <-s.done: // it exited while idle
		default:
			return s, nil
		}
	} else {
		servers.Unlock()
	}
	return m.startServer(key)
}

// release returns s to the idle servers.
func release(s *server) {
	servers.Lock()
	defer servers.Unlock()
	if servers.idle == nil {
		servers.idle = map[string][]*server{}
	}
	s.idle = time.Now()
	servers.idle[s.key] = append(servers.idle[s.key], s)
	if !servers.janitor {
		servers.janitor = true
		go janitor()
	}
}

// janitor stops the serve programs idle for serveIdle, until none is
// left.
func janitor() {
	for {
		time.Sleep(serveIdle / 5)
		servers.Lock()
		var stop []*server
		n := 0
		for key, l := range servers.idle {
			keep := l[:0]
			for _, s := range l {
				if time.Since(s.idle) >= serveIdle {
					stop = append(stop, s)
				} else {
					keep = append(keep, s)
				}
			}
			servers.idle[key] = keep
			n += len(keep)
		}
		if n == 0 {
			servers.janitor = false
		}
		servers.Unlock()
		for _, s := range stop {
			s.close()
		}
		if n == 0 {
			return
		}
	}
}

// closeServers stops every idle serve program (for tests).
func closeServers() {
	servers.Lock()
	var all []*server
	for key, l := range servers.idle {
		all = append(all, l...)
		delete(servers.idle, key)
	}
	servers.Unlock()
	for _, s := range all {
		s.close()
	}
}

// startServer starts m's serve program in a temporary directory of its
// own.
func (m *method) startServer(key string) (*server, error) {
	dir, err := tempDir()
	if err != nil {
		return nil, fmt.Errorf("command: %w", err)
	}
	vars := map[string]string{phDir: dir}
	if wd, err := os.Getwd(); err == nil {
		vars[phWorkdir] = wd
	}
	argv, err := expand(m.serve, vars)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("command: serve: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{key: key, argv: argv, cancel: cancel, errs: &syncTail{t: tail{max: stderrKeep}}, done: make(chan struct{}), status: -1}
	fail := func(err error) (*server, error) {
		cancel()
		os.RemoveAll(dir)
		return nil, &ProgramError{Phase: "serve", Argv: argv, Status: -1, Err: err}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if cmd.Err != nil {
		return fail(cmd.Err)
	}
	cmd.Dir, cmd.Env, cmd.Stderr = dir, environment(m.env, dir), s.errs
	cmd.WaitDelay = waitDelay
	if s.in, err = cmd.StdinPipe(); err != nil {
		return fail(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	s.out = bufio.NewReaderSize(out, answerMax)
	guard(cmd)
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	go func() {
		cmd.Wait()
		if st := cmd.ProcessState; st != nil && st.Exited() {
			s.status = st.ExitCode()
		}
		os.RemoveAll(dir)
		close(s.done)
	}()
	return s, nil
}

// kill kills s and waits for it to exit.
func (s *server) kill() {
	s.cancel()
	<-s.done
}

// close closes s's standard input, which asks it to exit, and kills it if
// it has not within a second.
func (s *server) close() {
	s.in.Close()
	select {
	case <-s.done:
	case <-time.After(time.Second):
	}
	s.kill()
}

// do sends argv to s and waits for its answer, at most timeout.
func (s *server) do(ctx context.Context, phase string, argv []string, timeout time.Duration) error {
	fail := func(status int, timedOut bool, err error) *ProgramError {
		return &ProgramError{Phase: phase, Argv: argv, Status: status, Timeout: timeout, TimedOut: timedOut, Stderr: s.errs.last(), Err: err}
	}
	line, err := json.Marshal(argv)
	if err != nil {
		return fail(-1, false, err)
	}
	type answer struct {
		line string
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		if _, err := s.in.Write(append(line, '\n')); err != nil {
			ch <- answer{err: err}
			return
		}
		l, err := s.out.ReadSlice('\n')
		ch <- answer{string(l), err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var a answer
	select {
	case a = <-ch:
	case <-ctx.Done():
		s.kill()
		return ctx.Err()
	case <-timer.C:
		s.kill()
		return fail(-1, true, context.DeadlineExceeded)
	}
	if a.err != nil {
		if errors.Is(a.err, bufio.ErrBufferFull) {
			s.kill()
			return fail(-1, false, fmt.Errorf("serve program %s answered a line longer than %d bytes; want \"ok\" or \"error: MESSAGE\" (its own output belongs on standard error)", s.argv[0], answerMax))
		}
		// It exited: say how.
		select {
		case <-s.done:
		case <-time.After(waitDelay):
			s.kill()
		}
		return fail(-1, false, fmt.Errorf("serve program %s exited (status %d) without answering", s.argv[0], s.status))
	}
	got := strings.TrimRight(a.line, "\r\n")
	switch msg, isErr := strings.CutPrefix(got, "error"); {
	case strings.TrimSpace(got) == "ok":
		return nil
	case isErr && (msg == "" || msg[0] == ':' || msg[0] == ' '):
		pe := fail(-1, false, fmt.Errorf("serve program %s answered: %s", s.argv[0], strings.TrimSpace(strings.TrimPrefix(msg, ":"))))
		pe.answered = true
		return pe
	}
	return fail(-1, false, fmt.Errorf("serve program %s answered %q; want \"ok\" or \"error: MESSAGE\" (its own output belongs on standard error)", s.argv[0], trunc(got, 200)))
}

// trunc returns s cut to n bytes, marked when cut.
func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// syncTail is a tail safe for concurrent use: the stderr of a serve
// program, written while a request reads it.
type syncTail struct {
	mu sync.Mutex
	t  tail
}

func (s *syncTail) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.Write(p)
}

// last returns its last lines, as a ProgramError quotes them.
func (s *syncTail) last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return lastLines(s.t.buf, stderrLines)
}
