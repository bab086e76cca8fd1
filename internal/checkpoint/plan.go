package checkpoint

import (
	"context"
	"slices"
)

// State is one recorded state of a work tree, in a session's history.
type State struct {
	Commit  string
	Skipped []string // paths above the size limit when it was recorded
	// Gateway marks a state the gateway itself produced from the state
	// right before it in the history: the tree after an agent turn (from
	// that turn's checkpoint) or after a rewind (from the tree before it).
	// Every other step between two states is someone else's: the user's.
	Gateway bool
}

// Plan is what a rewind to a checkpoint would do to the work tree now.
type Plan struct {
	Restore   []string `json:"restore"`   // written from the checkpoint (changed or removed since)
	Remove    []string `json:"remove"`    // created since the checkpoint
	Conflicts []string `json:"conflicts"` // paths among those that someone other than the gateway changed
}

// Plan compares the checkpoint target with now (a fresh Snapshot) through
// history: the states recorded since target, oldest first, starting with
// target itself and ending with now. A path the rewind would touch is a
// conflict when a step not made by the gateway changed it, or when its
// content was unknown at some state (skipped for its size). Paths that were
// skipped in target are never touched.
func (e *Engine) Plan(ctx context.Context, cwd string, history []State) (Plan, error) {
	if len(history) < 2 {
		return Plan{}, nil
	}
	target, now := history[0], history[len(history)-1]
	changes, err := e.Changes(ctx, cwd, target.Commit, now.Commit)
	if err != nil {
		return Plan{}, err
	}
	user, err := e.userChanges(ctx, cwd, history)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Restore: []string{}, Remove: []string{}, Conflicts: []string{}}
	for _, c := range changes {
		if slices.Contains(target.Skipped, c.Path) {
			continue
		}
		if user[c.Path] {
			p.Conflicts = append(p.Conflicts, c.Path)
		}
		if c.Status == 'A' {
			p.Remove = append(p.Remove, c.Path)
		} else {
			p.Restore = append(p.Restore, c.Path)
		}
	}
	return p, nil
}

// userChanges is every path changed by a step of history the gateway did
// not make, and every path whose content some state did not record.
func (e *Engine) userChanges(ctx context.Context, cwd string, history []State) (map[string]bool, error) {
	user := map[string]bool{}
	for _, s := range history[1:] {
		for _, big := range s.Skipped {
			user[big] = true
		}
	}
	for i := 1; i < len(history); i++ {
		if history[i].Gateway {
			continue
		}
		cs, err := e.Changes(ctx, cwd, history[i-1].Commit, history[i].Commit)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			user[c.Path] = true
		}
	}
	return user, nil
}
