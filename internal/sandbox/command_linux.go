package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// finish sets what every command gets at level: its own process group (so
// that cancelling kills the group, also where there is no pid namespace to
// do it), SIGKILL when the daemon dies, and for LevelFull the namespaces.
func finish(cmd *exec.Cmd, dir string, level Level, network bool) *exec.Cmd {
	cmd.Dir = dir // also for the helper: a missing cwd fails Start clearly
	cmd.SysProcAttr = sysProcAttr(level, network)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

// sysProcAttr is the clone of the helper. In LevelFull the helper is pid 1
// of a new pid namespace and execs into the command, so SIGKILL to its pid
// ends the namespace and every process in it.
//
// The helper is born with no uid or gid map and writes its own after its
// execve (mapSelf), mapping the daemon's uid and gid to themselves (a root
// daemon stays uid 0 inside, without capabilities once the helper drops
// them). SysProcAttr.UidMappings would have the parent write them before
// the child's execve, and that fails for an ordinary user's daemon: it is
// non-dumpable (daemon.Run sets PR_SET_DUMPABLE 0 so that no same-uid
// process can read its environ or memory), a forked child stays so until
// its execve, and a non-dumpable process's /proc/<pid>/uid_map belongs to
// root. The child cannot write it either before its execve (still
// non-dumpable); after it, it is dumpable and may map its own uid, as
// unshare -r does. This costs three small writes and no process: a second
// stage (a helper exec'd plainly that starts a namespaced helper) would
// cost another execve of the binary and put a process outside the pid
// namespace between the daemon and the sandbox. Root and non-root,
// dumpable or not, take this one path.
//
// Unmapped at its execve, the helper is never uid 0 of the namespace then,
// so it holds exactly the ambient capabilities below (the Go runtime
// raises them before the execve; they are meaningful only inside the new
// user namespace): enough to map itself, mount and bring up loopback, and
// to drop everything.
func sysProcAttr(level Level, network bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if level != LevelFull {
		return a
	}
	a.Cloneflags = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWIPC
	if !network {
		a.Cloneflags |= unix.CLONE_NEWNET
	}
	a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP, unix.CAP_NET_ADMIN}
	return a
}

// probes caches the probe per helper binary for the life of the process:
// the answer does not change, and each probe costs one helper start.
var probes sync.Map // exe → *probeEntry

type probeEntry struct {
	once sync.Once
	h    host
}

func probeCached(exe string) host {
	e, _ := probes.LoadOrStore(exe, new(probeEntry))
	pe := e.(*probeEntry)
	pe.once.Do(func() { pe.h = probe(exe) })
	return pe.h
}

func probe(exe string) host {
	var h host
	h.landlockABI, h.abiDetail = landlockABI()
	h.userNS, h.userNSDetail = probeFull(exe, h.landlockABI)
	return h
}

// probeFull starts the helper exactly as Command would at LevelFull, with
// the network off (the widest clone flags), and lets it build the whole
// view and install Landlock and seccomp before exiting 0: a cheaper check
// (unshare in a thread) would miss what really fails in the wild, such as
// mounting proc under a container's masked /proc or an LSM that refuses
// mounts in user namespaces.
func probeFull(exe string, abi int) (bool, string) {
	spec := helperSpec{Policy: Policy{Cwd: os.TempDir()}, Level: LevelFull, ABI: abi, Probe: true,
		UID: os.Geteuid(), GID: os.Getegid()}
	js, err := json.Marshal(spec)
	if err != nil {
		return false, err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, HelperArg, string(js), "--", "true")
	cmd.Env = []string{}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	finish(cmd, "/", LevelFull, false)
	if err := cmd.Run(); err != nil {
		if line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n"); line != "" {
			return false, line
		}
		return false, err.Error()
	}
	return true, ""
}
