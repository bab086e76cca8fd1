package authority

import (
	"context"
	"time"

	"github.com/hermes-gateway/hermes/internal/hooks"
)

// sessionEndBudget bounds the SessionEnd hooks of all sessions when the
// daemon stops: shutdown does not wait a hook's whole timeout.
const sessionEndBudget = 10 * time.Second

// preCompact runs the PreCompact hooks before a compression (trigger auto
// or manual). No turn is waiting for a viewer here, so project hooks run
// only with a consent already given; nothing a hook decides stops the
// compression.
func (a *Authority) preCompact(ctx context.Context, l *live, trigger string) {
	a.sessionEvent(ctx, l, hooks.Input{Event: hooks.PreCompact, Trigger: trigger})
}

// endHookSessions runs SessionEnd (reason "shutdown") for every session
// whose SessionStart ran in this process, after every turn has stopped.
func (a *Authority) endHookSessions() {
	a.mu.Lock()
	all := make([]*live, 0, len(a.live))
	for _, l := range a.live {
		all = append(all, l)
	}
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), sessionEndBudget)
	defer cancel()
	for _, l := range all {
		l.mu.Lock()
		sh := l.hooks
		l.mu.Unlock()
		if sh == nil {
			continue
		}
		sh.mu.Lock()
		started := sh.started
		sh.mu.Unlock()
		if started {
			a.sessionEvent(ctx, l, hooks.Input{Event: hooks.SessionEnd, Reason: "shutdown"})
		}
	}
}

// sessionEvent runs the hooks of an event outside a turn.
func (a *Authority) sessionEvent(ctx context.Context, l *live, in hooks.Input) {
	r := l.current()
	sh, err := a.hooksOf(l, r.Policy)
	if err != nil || sh == nil || !sh.set.Has(in.Event) {
		return
	}
	env := a.turns.toolEnv(l, r.Policy, stamp{})
	in.SessionID, in.Cwd = l.id, r.Policy.Cwd
	_, _ = a.fire(ctx, l, stamp{}, a.hookRunner(env), sh, a.projectAllowed(ctx, sh, r.Policy.Cwd), in)
}
