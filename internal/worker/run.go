package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/sandbox"
)

// killGrace is how long a worker may take to stop after cancel, or to exit
// after its result, before its process group is killed.
const killGrace = 5 * time.Second

// workerPath is the fixed PATH of a worker (and of its tools).
const workerPath = "/usr/local/bin:/usr/bin:/bin"

// Run runs one turn in a fresh worker process started from argv (e.g.
// []string{"/path/hermes", "worker"}) and returns its result. It never
// hangs on a misbehaving worker and never returns before the worker is
// reaped:
//   - ctx ending sends cancel; a worker that does not exit within a few
//     seconds is killed (outcome interrupted either way).
//   - a worker that dies without a result, or writes a line that is not a
//     valid frame, ends the turn failed with the reason (exit status,
//     stderr tail, protocol error); garbage kills it at once.
func Run(ctx context.Context, argv []string, spec Spec, host Host) agent.Result {
	return run(ctx, argv, spec, host, killGrace)
}

func run(ctx context.Context, argv []string, spec Spec, host Host, grace time.Duration) agent.Result {
	w, err := startProcess(argv, spec.Cwd)
	if err != nil {
		return agent.Result{Outcome: agent.OutcomeFailed, Err: fmt.Errorf("worker: %w", err)}
	}
	host.Started(w.pid)
	defer host.Exited(w.pid)
	p := startProxy(ctx, host, w.stdin, w.stdout)
	end := p.converse(ctx, spec, grace)
	p.stop()
	exitErr := w.stop(end.kill, grace)
	p.joinReader()
	if end.ok {
		return end.res
	}
	return died(ctx, p, exitErr, w.stderr.String())
}

// died is the result of a worker that ended without a result frame.
func died(ctx context.Context, p *proxy, exitErr error, stderr string) agent.Result {
	why := "exited"
	if exitErr != nil {
		why = exitErr.Error()
	}
	if s := strings.TrimSpace(stderr); s != "" {
		why += ": " + s
	}
	if ctx.Err() != nil {
		return p.partial(agent.OutcomeInterrupted, fmt.Errorf("turn interrupted: worker %s", why))
	}
	return p.partial(agent.OutcomeFailed, fmt.Errorf("worker died without a result (%s)", why))
}

// process is one started worker.
type process struct {
	cmd    *exec.Cmd
	pid    int
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *sandbox.TailBuffer
	waited chan error // receives cmd.Wait's result once; see stop
}

// startProcess starts argv in dir with a fresh environment, in its own
// process group, killed with its parent (Pdeathsig).
func startProcess(argv []string, dir string) (*process, error) {
	if len(argv) == 0 {
		return nil, errors.New("no worker command configured")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = freshEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	w := &process{cmd: cmd, stderr: sandbox.NewTailBuffer(4 << 10), waited: make(chan error, 1)}
	cmd.Stderr = w.stderr
	cmd.WaitDelay = killGrace // a descendant holding stderr open cannot block Wait
	var err error
	if w.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if w.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	w.pid = cmd.Process.Pid
	return w, nil
}

// freshEnv is the worker's whole environment: nothing of the daemon's but
// HOME, LANG and TMPDIR (no HERMES_*, no keys).
func freshEnv() []string {
	env := []string{"PATH=" + workerPath}
	home := os.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	for _, kv := range [][2]string{{"HOME", home}, {"LANG", os.Getenv("LANG")}, {"TMPDIR", os.Getenv("TMPDIR")}} {
		if kv[1] != "" {
			env = append(env, kv[0]+"="+kv[1])
		}
	}
	return env
}

// stop waits for the worker to exit (its stdin is closed by then), killing
// its process group at once when kill is set or after grace otherwise, and
// reaps it. It returns Wait's error.
func (w *process) stop(kill bool, grace time.Duration) error {
	go func() { w.waited <- w.cmd.Wait() }() // ends when the process is reaped
	if !kill {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case err := <-w.waited:
			return err
		case <-t.C:
		}
	}
	_ = syscall.Kill(-w.pid, syscall.SIGKILL) // not reaped yet: the group id is still ours
	return <-w.waited
}
