package daemon

import (
	"bytes"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/hermes-gateway/hermes/internal/control"
)

// toolGroupsFile in the home lists the process groups of the tools that
// are running, one id a line. Pdeathsig kills a tool's own process when
// the daemon dies, not the children it forked; the next daemon kills what
// is left of these groups before it recovers (docs/protocol.md#orphaned-tools).
const toolGroupsFile = "tool-groups"

// procTracker remembers the pids of tool processes the gateway started, so
// the control socket refuses tickets to them and their descendants, and
// keeps their groups in toolGroupsFile. Every tool leads its own group.
type procTracker struct {
	path string // toolGroupsFile; "" = not kept

	fileMu sync.Mutex // serializes the updates of the file, which it guards

	mu   sync.Mutex
	pids map[int]bool // guarded by mu
}

func newProcTracker(path string) *procTracker {
	return &procTracker{path: path, pids: map[int]bool{}}
}

// Started implements tools.ProcessTracker.
func (p *procTracker) Started(pid int) { p.update(func() { p.pids[pid] = true }) }

// Exited implements tools.ProcessTracker.
func (p *procTracker) Exited(pid int) { p.update(func() { delete(p.pids, pid) }) }

// update applies change under mu, then rewrites the file (write and
// rename: a crash leaves the old or the new list). It needs no fsync: a
// daemon crash keeps the page cache and a power loss ends the tools too.
func (p *procTracker) update(change func()) {
	p.fileMu.Lock()
	defer p.fileMu.Unlock()
	p.mu.Lock()
	change()
	var b strings.Builder
	for _, pid := range slices.Sorted(maps.Keys(p.pids)) {
		fmt.Fprintf(&b, "%d\n", pid)
	}
	p.mu.Unlock()
	if p.path == "" {
		return
	}
	tmp := p.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err == nil {
		_ = os.Rename(tmp, p.path)
	}
}

// IsToolProcess reports whether pid is a running tool process.
func (p *procTracker) IsToolProcess(pid int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pids[pid]
}

// killOrphanTools kills the tool process groups a previous daemon of this
// home recorded and did not see end (it was killed). The home lock is held,
// so no live daemon owns them. A group is killed only while one of its
// processes carries the tool marker, so a recycled id is left alone.
func killOrphanTools(home string, log *slog.Logger) {
	path := filepath.Join(home, toolGroupsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for _, f := range strings.Fields(string(b)) {
		pgid, err := strconv.Atoi(f)
		if err != nil || pgid <= 1 || !toolGroupAlive(pgid) {
			continue
		}
		if err := syscall.Kill(-pgid, syscall.SIGKILL); err == nil {
			log.Warn("killed the orphaned process group of an interrupted tool", "pgid", pgid)
		}
	}
	_ = os.Remove(path)
}

// toolGroupAlive reports whether a process of group pgid carries the
// tool marker in its environment.
func toolGroupAlive(pgid int) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	marker := []byte(control.ToolProcessEnv)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err != nil || g != pgid {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && slices.ContainsFunc(bytes.Split(env, []byte{0}), func(kv []byte) bool { return bytes.Equal(kv, marker) }) {
			return true
		}
	}
	return false
}
