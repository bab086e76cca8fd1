package lifecycle

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/control"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
)

// proc is one process as /proc describes it.
type proc struct {
	pid, ppid, pgid int
	state           byte // R, S, D, T, Z …
	cmdline         string
}

// procs lists every process that /proc shows (skipping ones that vanish
// while being read).
func procs() []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// readProc parses /proc/PID/stat (fields after the parenthesised comm:
// state ppid pgrp) and cmdline.
func readProc(pid int) (proc, bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return proc{}, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 3 {
		return proc{}, false
	}
	p := proc{pid: pid, state: f[0][0]}
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgid, _ = strconv.Atoi(f[2])
	cmd, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
	p.cmdline = strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
	return p, true
}

// isTool reports whether pid's environment marks it as a tool process.
func isTool(pid int) bool {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if string(kv) == control.ToolProcessEnv {
			return true
		}
	}
	return false
}

// awaitToolGroup waits until the daemon pid has a tool child whose group
// holds a live process whose command line is want, and returns the
// group id (the tool's pid: it leads its own group).
func awaitToolGroup(t *testing.T, daemonPID int, want string) int {
	t.Helper()
	pgid := 0
	gt.Await(t, wait, func() bool {
		all := procs()
		for _, p := range all {
			if p.ppid != daemonPID || p.pgid != p.pid || !isTool(p.pid) {
				continue
			}
			for _, m := range groupOf(all, p.pid) {
				if m.cmdline == want {
					pgid = p.pid
					return true
				}
			}
		}
		return false
	})
	return pgid
}

// groupOf returns the processes of group pgid that are alive (zombies
// are dead: they only wait for a parent, maybe a pid 1 that never reaps).
func groupOf(all []proc, pgid int) []proc {
	var out []proc
	for _, p := range all {
		if p.pgid == pgid && p.state != 'Z' && p.state != 'X' {
			out = append(out, p)
		}
	}
	return out
}

// awaitGroupGone waits up to timeout until no live process is left in
// group pgid; it fails t naming the survivors.
func awaitGroupGone(t *testing.T, pgid int, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := gt.AwaitCtx(ctx, func() bool { return len(groupOf(procs(), pgid)) == 0 }); err != nil {
		t.Fatalf("tool process group %d still has live processes after %v: %s", pgid, timeout, survivors(pgid))
	}
}

// survivors describes the live members of group pgid.
func survivors(pgid int) string {
	var b strings.Builder
	for _, p := range groupOf(procs(), pgid) {
		fmt.Fprintf(&b, "pid %d (ppid %d, state %c) %q; ", p.pid, p.ppid, p.state, p.cmdline)
	}
	return b.String()
}
