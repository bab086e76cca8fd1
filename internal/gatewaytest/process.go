package gatewaytest

import (
	"fmt"
	"syscall"
	"time"
)

// ExitTimeout bounds Kill, Stop and Wait.
const ExitTimeout = 30 * time.Second

// Kill sends SIGKILL (a crash: no deferred cleanup, no checkpoint) and
// waits for the process to end.
func (d *Daemon) Kill() {
	d.t.Helper()
	_ = d.cmd.Process.Signal(syscall.SIGKILL)
	d.Wait()
}

// Stop sends SIGTERM (graceful stop) and returns the exit code.
func (d *Daemon) Stop() int {
	d.t.Helper()
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	return d.Wait()
}

// Signal sends sig to the daemon (e.g. SIGSTOP, SIGCONT).
func (d *Daemon) Signal(sig syscall.Signal) error { return d.cmd.Process.Signal(sig) }

// Wait waits up to ExitTimeout for the process to end and returns its exit
// code: -1 when a signal ended it (see Signaled). A process that does not
// end in time is killed and fails t.
func (d *Daemon) Wait() int {
	d.t.Helper()
	select {
	case <-d.done:
	case <-time.After(ExitTimeout):
		_ = d.cmd.Process.Signal(syscall.SIGKILL)
		<-d.done
		d.t.Fatalf("gatewaytest: daemon pid %d did not exit within %v", d.PID(), ExitTimeout)
	}
	return d.ExitCode()
}

// ExitCode is the exit code after the process ended (-1 if killed by a
// signal or still running).
func (d *Daemon) ExitCode() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state == nil {
		return -1
	}
	return d.state.ExitCode()
}

// Signaled reports the signal that ended the process, if one did.
func (d *Daemon) Signaled() (syscall.Signal, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state == nil {
		return 0, false
	}
	ws, ok := d.state.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return ws.Signal(), true
}

// AwaitCrash waits up to timeout for the process to end by SIGKILL (a
// fault point's crash) and fails t otherwise.
func (d *Daemon) AwaitCrash(timeout time.Duration) {
	d.t.Helper()
	select {
	case <-d.done:
	case <-time.After(timeout):
		d.t.Fatalf("gatewaytest: daemon pid %d did not crash within %v", d.PID(), timeout)
	}
	if sig, ok := d.Signaled(); !ok || sig != syscall.SIGKILL {
		d.t.Fatalf("gatewaytest: daemon ended with %s, want SIGKILL", d.describeExit())
	}
}

func (d *Daemon) describeExit() string {
	if sig, ok := d.Signaled(); ok {
		return "signal " + sig.String()
	}
	return fmt.Sprintf("exit code %d", d.ExitCode())
}
