package control

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ToolProcessEnv marks the environment of every process the gateway starts
// for a tool; such a process (or a descendant that kept its environment)
// may not mint tickets.
const ToolProcessEnv = "HERMES_TOOL_PROCESS=1"

// maxAncestry bounds the /proc walk (a cycle cannot happen, but a bug or a
// race must not loop forever).
const maxAncestry = 4096

// peer is the kernel-reported identity of the process at the other end.
type peer struct {
	UID int
	PID int // 0 when the peer lives in a pid namespace we cannot see
}

// peerCred reads SO_PEERCRED of a unix connection.
func peerCred(c *net.UnixConn) (peer, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return peer{}, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := rc.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return peer{}, err
	}
	if credErr != nil {
		return peer{}, fmt.Errorf("SO_PEERCRED: %w", credErr)
	}
	return peer{UID: int(cred.Uid), PID: int(cred.Pid)}, nil
}

// Ancestors returns the parent chain of pid read from /proc/<pid>/stat:
// its parent first, then the grandparent, up to the top of the pid
// namespace (pid 1, or the last process whose parent is outside it). pid
// itself is not included. An error means some link could not be read (the
// process exited, or /proc is not mounted).
func Ancestors(pid int) ([]int, error) {
	var chain []int
	for cur := pid; len(chain) < maxAncestry; {
		ppid, err := parentPID(cur)
		if err != nil {
			return chain, err
		}
		if ppid <= 0 {
			return chain, nil
		}
		chain = append(chain, ppid)
		if ppid == 1 {
			return chain, nil
		}
		cur = ppid
	}
	return chain, errors.New("ancestry too deep")
}

// parentPID reads the ppid field of /proc/<pid>/stat. The comm field is in
// parentheses and may itself contain spaces and ')', so the fields are
// taken after the last ')'.
func parentPID(pid int) (int, error) {
	if pid <= 0 {
		return 0, fmt.Errorf("invalid pid %d", pid)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStatPPID(string(b))
}

func parseStatPPID(stat string) (int, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("malformed stat: no comm")
	}
	fields := strings.Fields(stat[i+1:]) // state, ppid, …
	if len(fields) < 2 {
		return 0, errors.New("malformed stat: no ppid")
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return 0, fmt.Errorf("malformed stat ppid: %w", err)
	}
	return ppid, nil
}

// hasToolEnv reports whether /proc/<pid>/environ (the environment the
// process was started with) contains ToolProcessEnv.
func hasToolEnv(pid int) (bool, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false, err
	}
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if string(kv) == ToolProcessEnv {
			return true, nil
		}
	}
	return false, nil
}

// errToolProcess is the refusal of a ticket to a tool process tree.
var errToolProcess = publicError("refused: tool processes cannot mint tickets")

// errSandboxed is the refusal of a ticket to a process that is confined
// the way every sandboxed tool is. A tool that detached from its tree and
// dropped the marker still carries both, for ever and into every child.
var errSandboxed = publicError("refused: the requesting process runs under no_new_privs with a seccomp filter, " +
	"as every sandboxed tool process does; tool processes cannot mint tickets (run hermes outside such a sandbox)")

// sandboxedStatus reports whether a /proc/<pid>/status text shows
// NoNewPrivs: 1 together with Seccomp: 2 (a filter). Neither can be undone
// by the process or its descendants, so this closes the Landlock-only
// fallback, where the control socket path stays reachable. A status
// without the fields (kernels before 4.10) is not sandboxed: the sandbox
// needs newer kernels anyway.
func sandboxedStatus(status string) bool {
	var nnp, filter bool
	for line := range strings.Lines(status) {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch value = strings.TrimSpace(value); key {
		case "NoNewPrivs":
			nnp = value == "1"
		case "Seccomp":
			filter = value == "2"
		}
	}
	return nnp && filter
}

// checkNotSandboxed refuses a peer confined like a sandboxed tool; an
// unreadable status refuses too.
func checkNotSandboxed(pid int) error {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return &refusal{text: "refused: cannot read the requesting process status", cause: err}
	}
	if sandboxedStatus(string(b)) {
		return errSandboxed
	}
	return nil
}

// checkNotTool refuses a peer that is, or descends from, a tool process,
// or that is confined like a sandboxed one (checkNotSandboxed). It fails
// closed: an unknown pid, an unreadable ancestry or an unreadable
// peer environment refuse too. Ancestors' environments are checked best
// effort (an unrelated ancestor may not be readable).
func checkNotTool(pid int, isTool func(int) bool) error {
	if pid <= 0 {
		return publicError("refused: cannot identify the requesting process")
	}
	if err := checkNotSandboxed(pid); err != nil {
		return err
	}
	chain, err := Ancestors(pid)
	if err != nil {
		return &refusal{text: "refused: cannot read the requesting process tree", cause: err}
	}
	if tool, err := hasToolEnv(pid); err != nil {
		return &refusal{text: "refused: cannot read the requesting process environment", cause: err}
	} else if tool {
		return errToolProcess
	}
	for _, p := range append([]int{pid}, chain...) {
		if isTool != nil && isTool(p) {
			return errToolProcess
		}
		if p != pid {
			if tool, _ := hasToolEnv(p); tool {
				return errToolProcess
			}
		}
	}
	return nil
}
