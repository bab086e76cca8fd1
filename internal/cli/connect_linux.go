package cli

import "golang.org/x/sys/unix"

// keepSecret makes this process non-dumpable: its /proc/<pid>/mem and
// environ are then readable by no process of the same uid (only with
// CAP_SYS_PTRACE), and it leaves no core file.
func keepSecret() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
