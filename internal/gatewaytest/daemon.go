package gatewaytest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/control"
)

// ReadyTimeout bounds how long Start waits for a daemon to become ready.
const ReadyTimeout = 20 * time.Second

// Daemon is one `hermes --home H gateway run` process.
type Daemon struct {
	t    testing.TB
	Bin  string // the executable
	Home string // the profile home
	Out  string // file holding the process's stdout and stderr

	cmd  *exec.Cmd
	done chan struct{} // closed when the process has been waited for

	mu    sync.Mutex
	ident control.Identity // guarded by mu: the last ready identify answer
	state *os.ProcessState // guarded by mu: set before done is closed
}

var launches atomic.Int64

// Start launches the daemon and waits until identify reports "ready"; a
// daemon that exits or does not become ready within ReadyTimeout fails t.
// env entries (KEY=VALUE) are added to a copy of the test's environment
// from which every HERMES_* variable was removed.
func Start(t testing.TB, bin, home string, env ...string) *Daemon {
	t.Helper()
	d := Launch(t, bin, home, env...)
	ctx, cancel := context.WithTimeout(context.Background(), ReadyTimeout)
	defer cancel()
	if _, err := d.AwaitReady(ctx); err != nil {
		t.Fatalf("gatewaytest: daemon not ready: %v\n%s", err, d.Output())
	}
	return d
}

// Launch starts the daemon without waiting for readiness (for daemons
// expected to refuse to start or to crash during recovery). It is killed
// in t.Cleanup if still running; when t failed its output is logged.
func Launch(t testing.TB, bin, home string, env ...string) *Daemon {
	t.Helper()
	n := launches.Add(1)
	out := filepath.Join(filepath.Dir(home), fmt.Sprintf("daemon-%d.out", n))
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(bin, "--home", home, "gateway", "run")
	cmd.Env = append(CleanEnv(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("gatewaytest: start %s: %v", bin, err)
	}
	d := &Daemon{t: t, Bin: bin, Home: home, Out: out, cmd: cmd, done: make(chan struct{})}
	go d.wait()
	t.Cleanup(d.cleanup)
	return d
}

// CleanEnv is the test's environment without HERMES_* variables: a
// process under test sees only what the test gives it.
func CleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HERMES_") {
			env = append(env, kv)
		}
	}
	return env
}

func (d *Daemon) wait() {
	_ = d.cmd.Wait()
	d.mu.Lock()
	d.state = d.cmd.ProcessState
	d.mu.Unlock()
	close(d.done)
}

func (d *Daemon) cleanup() {
	select {
	case <-d.done:
	default:
		_ = d.cmd.Process.Signal(syscall.SIGKILL)
		<-d.done
	}
	if d.t.Failed() {
		d.t.Logf("gatewaytest: output of daemon pid %d (%s):\n%s", d.cmd.Process.Pid, d.Out, d.Output())
	}
}

// PID is the daemon's process id.
func (d *Daemon) PID() int { return d.cmd.Process.Pid }

// Socket is the control socket path.
func (d *Daemon) Socket() string { return filepath.Join(d.Home, "gateway.sock") }

// Output is what the process wrote to stdout and stderr so far (the last
// 256 KiB).
func (d *Daemon) Output() string {
	b, err := os.ReadFile(d.Out)
	if err != nil {
		return fmt.Sprintf("(no output: %v)", err)
	}
	if len(b) > 256<<10 {
		b = b[len(b)-256<<10:]
	}
	return string(b)
}

// Exited is closed when the process has ended.
func (d *Daemon) Exited() <-chan struct{} { return d.done }

// Alive reports whether the process is still running.
func (d *Daemon) Alive() bool {
	select {
	case <-d.done:
		return false
	default:
		return true
	}
}

// AwaitReady polls identify until the state is "ready". It fails when the
// process exits first or ctx ends.
func (d *Daemon) AwaitReady(ctx context.Context) (control.Identity, error) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		var id control.Identity
		err := control.Call(cctx, d.Socket(), "identify", nil, &id)
		cancel()
		if err == nil && id.State == "ready" && id.PID == d.PID() {
			d.mu.Lock()
			d.ident = id
			d.mu.Unlock()
			return id, nil
		}
		select {
		case <-d.done:
			return control.Identity{}, fmt.Errorf("daemon exited (%s) before it was ready", d.describeExit())
		case <-ctx.Done():
			return control.Identity{}, fmt.Errorf("daemon not ready: %w (last identify error: %v)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}

// Identity is the identify answer seen when the daemon became ready.
func (d *Daemon) Identity() control.Identity {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ident
}

// Status asks the control socket for status.
func (d *Daemon) Status(ctx context.Context) (control.Status, error) {
	var st control.Status
	err := control.Call(ctx, d.Socket(), "status", nil, &st)
	return st, err
}
