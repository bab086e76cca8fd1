package sandbox

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// LeadGroup makes cmd (built by a Launcher or bare) lead its own process
// group, killed with the gateway (Pdeathsig) and killed whole when its
// context ends (Cancel). grace is cmd.WaitDelay: how long a finished
// command's pipes may be held open by a background child it left behind.
// What the Launcher already set in SysProcAttr (namespaces) is kept.
func LeadGroup(cmd *exec.Cmd, grace time.Duration) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pdeathsig = true, syscall.SIGKILL
	cmd.Cancel = func() error { return KillGroup(cmd.Process.Pid) }
	cmd.WaitDelay = grace
}

// KillGroup SIGKILLs the process group led by pid; a group already gone is
// not an error.
func KillGroup(pid int) error {
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
