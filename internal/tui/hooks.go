package tui

import (
	"fmt"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// hookRun shows a hook that blocked or failed as a note in the turn
// (issue 12); hooks that went fine stay quiet. Everything the hook or its
// configuration wrote is shown through protocol.Visible.
func (m *Model) hookRun(ev protocol.Event) {
	var p protocol.HookRunPayload
	if !decode(ev.Payload, &p) || p.Outcome == protocol.HookOK {
		return
	}
	what := "failed"
	switch {
	case p.Blocks && p.Outcome == protocol.HookBlocked:
		what = "blocked"
	case p.Blocks:
		what = p.Outcome + " (fail_closed: blocked)"
	case p.Outcome == protocol.HookTimeout:
		what = "timed out"
	}
	target := p.Event
	if p.Tool != "" {
		target += " " + p.Tool
	}
	note := fmt.Sprintf("hook %s: %s: %s (exit %d, %d ms)", what, target, p.Command, p.ExitCode, p.DurationMS)
	if p.Reason != "" {
		note += " — " + p.Reason
	}
	m.addNote(protocol.Visible(note))
}
