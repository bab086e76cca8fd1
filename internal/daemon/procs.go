package daemon

import "sync"

// procTracker remembers the pids of tool processes the gateway started, so
// the control socket refuses tickets to them and their descendants.
type procTracker struct {
	mu   sync.Mutex
	pids map[int]bool // guarded by mu
}

func newProcTracker() *procTracker { return &procTracker{pids: map[int]bool{}} }

// Started implements tools.ProcessTracker.
func (p *procTracker) Started(pid int) {
	p.mu.Lock()
	p.pids[pid] = true
	p.mu.Unlock()
}

// Exited implements tools.ProcessTracker.
func (p *procTracker) Exited(pid int) {
	p.mu.Lock()
	delete(p.pids, pid)
	p.mu.Unlock()
}

// IsToolProcess reports whether pid is a running tool process.
func (p *procTracker) IsToolProcess(pid int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pids[pid]
}
