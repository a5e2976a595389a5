//go:build linux

package command

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// On Linux a program does not run as repro's child but as the child of a
// guard: repro's own executable (/proc/self/exe) started again with the
// environment variable guardEnv set, which this package's init turns
// into guardMain before anything else runs. The guard
//
//   - dies with repro: its parent-death signal is SIGTERM, delivered when
//     repro exits however it exits (kill -9 included);
//   - is a child subreaper (PR_SET_CHILD_SUBREAPER), so that every
//     process the program starts stays in its tree even when it calls
//     setsid or its parent exits (an orphan is reparented to the guard,
//     not to init);
//   - on SIGTERM (repro's timeout or cancellation, or repro's death), and
//     when the program exits by itself, kills every process left in its
//     tree, so that nothing outlives the run and no background child
//     holds the pipes of a program that has exited;
//   - exits with the program's status (128+N when a signal N killed it).
//
// A parent-death signal is sent when the thread that started the child
// exits; Go ends a thread only when a goroutine locked to it
// (runtime.LockOSThread) returns, which repro never does.
const guardEnv = "REPRO_COMMAND_GUARD"

// guardRace ends guardEnv's value when repro set GORACE for the guard
// alone.
const guardRace = "+gorace"

func init() {
	if v, ok := os.LookupEnv(guardEnv); ok {
		os.Exit(guardMain(v))
	}
}

// guard makes cmd run its program under the guard. cmd.Path must be the
// program's resolved path (exec.Command has looked it up).
func guard(cmd *exec.Cmd) {
	prog := cmd.Path
	cmd.Path = "/proc/self/exe"
	cmd.Args = append([]string{"repro-command-guard", prog}, cmd.Args...)
	mark := strconv.Itoa(os.Getpid())
	env := cmd.Env[:len(cmd.Env):len(cmd.Env)]
	if !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, "GORACE=") }) {
		// A race-enabled build (go test -race) sleeps a second at exit
		// unless told not to; the guard removes the variable again.
		env = append(env, "GORACE=atexit_sleep_ms=0")
		mark += guardRace
	}
	cmd.Env = append(env, guardEnv+"="+mark)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
}

// guardMain is the guard's main: args are the program's path, then its
// argument vector (argv[0] first); parent is repro's pid. It returns the
// guard's exit status.
func guardMain(parent string) int {
	os.Unsetenv(guardEnv)
	if p, ok := strings.CutSuffix(parent, guardRace); ok {
		parent = p
		os.Unsetenv("GORACE")
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "repro: command guard: prctl(PR_SET_CHILD_SUBREAPER): %v\n", err)
		return 126
	}
	if strconv.Itoa(os.Getppid()) != parent { // repro died before the guard was set up
		return 128 + int(syscall.SIGTERM)
	}
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "repro: command guard: no program given")
		return 126
	}
	cmd := &exec.Cmd{Path: os.Args[1], Args: os.Args[2:], Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "repro: cannot start %s: %v\n", os.Args[1], err)
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var status int
	select {
	case err := <-done:
		status = exitStatus(cmd, err)
	case <-sigs:
		cmd.Process.Kill()
		killTree(cmd.Process.Pid)
		<-done
		status = 128 + int(syscall.SIGKILL)
	}
	killTree(0)
	return status
}

// exitStatus returns the status a shell would give the program Wait
// returned err for: its exit code, or 128+N when signal N killed it.
func exitStatus(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState == nil {
		return 126
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}

// killTree kills every process descending from this one with SIGKILL
// and reaps those reparented to it, until none is left; main, if not 0,
// is a child that another goroutine waits for, which it must not reap.
func killTree(main int) {
	self := os.Getpid()
	for i := 0; ; i++ {
		left := 0
		for _, p := range descendants(self) {
			if p.zombie && (p.pid == main || p.ppid != self) {
				continue // reaped by its waiter, or by us once reparented
			}
			left++
			syscall.Kill(p.pid, syscall.SIGKILL)
			if p.ppid == self && p.pid != main {
				var ws syscall.WaitStatus
				syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
			}
		}
		if left == 0 || i == 2000 {
			return
		}
		time.Sleep(time.Duration(min(i+1, 10)) * time.Millisecond)
	}
}

// proc is a process of /proc: its pid, its parent's and whether it is a
// zombie.
type proc struct {
	pid, ppid int
	zombie    bool
}

// descendants returns the processes descending from root, read from
// /proc/*/stat.
func descendants(root int) []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]proc{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // it exited meanwhile
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		children[ppid] = append(children[ppid], proc{pid: pid, ppid: ppid, zombie: f[0] == "Z"})
	}
	var out []proc
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
	}
	return out
}
