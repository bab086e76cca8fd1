package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// /rewind (issue 11): a picker of the session's checkpointed turns
// (session.checkpoints), then the mode, then the result of session.rewind.
// A rewind that finds files the user changed answers "conflicts" and
// changes nothing; the result lists them and offers force.

// rewindStage is where the /rewind flow is.
type rewindStage int

const (
	rewindTurns   rewindStage = iota // picking a checkpointed turn
	rewindMode                       // picking files / conversation / both
	rewindWaiting                    // session.rewind in flight
	rewindResult                     // the answer: rewound, conflicts or an error
)

// rewindModes are the modes in the order the picker offers them.
var rewindModes = []string{protocol.RewindFiles, protocol.RewindConversation, protocol.RewindBoth}

var rewindModeHelp = map[string]string{
	protocol.RewindFiles:        "put the files back as they were before the turn",
	protocol.RewindConversation: "continue the conversation from before the turn",
	protocol.RewindBoth:         "files first, then the conversation",
}

// rewindFlow is the open /rewind picker.
type rewindFlow struct {
	stage  rewindStage
	turns  []protocol.Checkpoint // oldest first, as session.checkpoints lists them
	cursor int                   // into turns
	mode   int                   // into rewindModes
	req    protocol.SessionRewindParams
	res    protocol.SessionRewindResult
	err    string // the failed call, public text
}

// Messages of the /rewind commands.
type (
	checkpointsMsg struct {
		sid  string
		list []protocol.Checkpoint
		err  error
	}
	rewoundMsg struct {
		req protocol.SessionRewindParams
		res protocol.SessionRewindResult
		err error
	}
)

func checkpointsCmd(c *client.Client, sid string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		res, err := c.Checkpoints(ctx, sid)
		return checkpointsMsg{sid: sid, list: res.Checkpoints, err: err}
	}
}

// rewindCallTimeout bounds session.rewind: it snapshots and restores the
// tree, which takes longer than other calls on a big one.
const rewindCallTimeout = 2 * time.Minute

func rewindCmd(c *client.Client, p protocol.SessionRewindParams) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), rewindCallTimeout)
		defer cancel()
		res, err := c.Rewind(ctx, p)
		return rewoundMsg{req: p, res: res, err: err}
	}
}

// openRewind lists the session's checkpoints; the picker opens when they
// arrive.
func (m *Model) openRewind() tea.Cmd {
	return checkpointsCmd(m.c, m.sid)
}

// onRewindMsg applies the answer of a /rewind command.
func (m *Model) onRewindMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case checkpointsMsg:
		if msg.sid != m.sid {
			return nil // the session changed meanwhile
		}
		if msg.err != nil {
			m.note = "rewind: " + msg.err.Error()
			return nil
		}
		if len(msg.list) == 0 {
			m.note = "rewind: no checkpointed turns in this session (checkpoints are off, or no turn has changed files yet)"
			return nil
		}
		m.picker = nil
		m.rewind = &rewindFlow{turns: msg.list, cursor: len(msg.list) - 1}
	case rewoundMsg:
		f := m.rewind
		if f == nil || f.stage != rewindWaiting || f.req.CheckpointID != msg.req.CheckpointID {
			return nil
		}
		f.stage, f.res, f.err = rewindResult, msg.res, ""
		if msg.err != nil {
			f.err = rewindError(msg.err)
			return nil
		}
		if msg.res.Status == protocol.RewindStatusRewound && msg.req.Mode != protocol.RewindFiles && m.c != nil {
			// The transcript is now the one from before the turn.
			return m.attachCmd(attach{old: m.sid, subID: m.subID})
		}
	}
	return nil
}

// rewindError is the public text of a failed session.rewind.
func rewindError(err error) string {
	switch client.Reason(err) {
	case protocol.ReasonSessionBusy:
		return "a turn is running: wait for it to end (or /stop it), then /rewind again"
	case protocol.ReasonNotFound:
		return "that checkpoint is gone (pruned, or of another session)"
	}
	return err.Error()
}

// rewindKey drives the open /rewind flow.
func (m *Model) rewindKey(k tea.KeyPressMsg) tea.Cmd {
	f := m.rewind
	key := k.String()
	switch f.stage {
	case rewindTurns:
		switch key {
		case "up", "k":
			f.cursor = max(f.cursor-1, 0)
		case "down", "j":
			f.cursor = min(f.cursor+1, len(f.turns)-1)
		case "enter":
			f.stage = rewindMode
		case "esc", "q":
			m.rewind = nil
		}
	case rewindMode:
		switch key {
		case "up", "k":
			f.mode = max(f.mode-1, 0)
		case "down", "j":
			f.mode = min(f.mode+1, len(rewindModes)-1)
		case "f", "c", "b":
			f.mode = strings.Index("fcb", key)
			return m.sendRewind(false)
		case "enter":
			return m.sendRewind(false)
		case "esc":
			f.stage = rewindTurns
		case "q":
			m.rewind = nil
		}
	case rewindWaiting:
		if key == "esc" || key == "q" {
			m.rewind = nil // the answer, when it comes, is dropped
		}
	case rewindResult:
		if key == "f" && f.err == "" && f.res.Status == protocol.RewindStatusConflicts {
			return m.sendRewind(true)
		}
		if key == "esc" || key == "q" || key == "enter" {
			m.rewind = nil
		}
	}
	return nil
}

// sendRewind calls session.rewind with the picked turn and mode.
func (m *Model) sendRewind(force bool) tea.Cmd {
	f := m.rewind
	if m.c == nil {
		m.note = "not connected"
		return nil
	}
	f.req = protocol.SessionRewindParams{SessionID: m.sid, CheckpointID: f.turns[f.cursor].CheckpointID, Mode: rewindModes[f.mode]}
	if force {
		t := true
		f.req.Force = &t
	}
	f.stage, f.err = rewindWaiting, ""
	return rewindCmd(m.c, f.req)
}

// rewindLines renders the open /rewind flow. Summaries and paths come from
// the session (the user's prompts, the agent's files): shown through vis.
func (m *Model) rewindLines(w int) []string {
	f := m.rewind
	line := func(s string) string { return ansi.Truncate(s, w, "…") }
	turn := f.turns[f.cursor]
	switch f.stage {
	case rewindTurns:
		lines := []string{styleHeader.Render("rewind: pick a turn") + styleDim.Render("  ↑/↓ move · enter next · esc close")}
		for i, c := range f.turns {
			cursor := "  "
			if i == f.cursor {
				cursor = "> "
			}
			lines = append(lines, line(fmt.Sprintf("%s%s  %s  %s", cursor, when(c.CreatedAt), files(c.Files), vis(clip(c.Summary, 60)))))
		}
		return lines
	case rewindMode:
		lines := []string{
			styleHeader.Render("rewind to before: ") + vis(clip(turn.Summary, 40)) + styleDim.Render("  ↑/↓ f/c/b · enter rewind · esc back"),
		}
		for i, mode := range rewindModes {
			cursor := "  "
			if i == f.mode {
				cursor = "> "
			}
			lines = append(lines, line(fmt.Sprintf("%s[%s]%-13s %s", cursor, mode[:1], mode[1:], styleDim.Render(rewindModeHelp[mode]))))
		}
		return lines
	case rewindWaiting:
		return []string{line(styleDim.Render("rewinding (" + f.req.Mode + ") to before: " + vis(clip(turn.Summary, 40)) + " …"))}
	}
	if f.err != "" {
		return append(wrap(styleFail.Render("rewind failed: "+visText(f.err)), w), styleDim.Render("  esc close"))
	}
	r := f.res
	if r.Status == protocol.RewindStatusConflicts {
		lines := wrap(styleWarn.Render(fmt.Sprintf("⚠ nothing changed: %d file(s) were changed since the agent last wrote them:", len(r.Conflicts))), w)
		lines = append(lines, pathLines(r.Conflicts, w)...)
		return append(lines, line(fmt.Sprintf("  [f]orce: overwrite them too (%d restored, %d removed) · esc cancel", len(r.Restored), len(r.Removed))))
	}
	what := f.req.Mode
	if f.req.Force != nil && *f.req.Force {
		what += ", forced"
	}
	lines := []string{line(styleOK.Render(fmt.Sprintf("✓ rewound (%s): %d restored, %d removed", what, len(r.Restored), len(r.Removed))))}
	if f.req.Mode != protocol.RewindFiles {
		lines = append(lines, line(styleDim.Render("  the conversation continues from before: "+vis(clip(turn.Summary, 40)))))
	}
	return append(lines, styleDim.Render("  enter close"))
}

// pathLines lists paths, at most pathMax of them.
func pathLines(paths []string, w int) []string {
	const pathMax = 8
	var out []string
	for i, p := range paths {
		if i == pathMax {
			out = append(out, styleDim.Render(fmt.Sprintf("    … and %d more", len(paths)-pathMax)))
			break
		}
		out = append(out, ansi.Truncate("    "+vis(p), w, "…"))
	}
	return out
}

// when shows an RFC 3339 time in local time, to the minute.
func when(rfc string) string {
	t, err := time.Parse(time.RFC3339Nano, rfc)
	if err != nil {
		return vis(clip(rfc, 16))
	}
	return t.Local().Format("Jan _2 15:04")
}

func files(n int) string {
	if n == 1 {
		return "   1 file "
	}
	return fmt.Sprintf("%4d files", n)
}
