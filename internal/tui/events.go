package tui

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// rebuild replaces the view state with a snapshot. Events at or below its
// last_sequence are already in it. Deltas are ignored until the next
// journaled message or tool event: those read before it may precede the
// snapshot (deltas carry no sequence), and the text of a message that was
// streaming comes whole with its message.complete.
func (m *Model) rebuild(s protocol.Snapshot) {
	old := m.entries
	if s.SessionID != m.sid {
		old, m.failed = nil, map[string]string{}
	}
	m.sid, m.subID, m.info = s.SessionID, s.SubscriptionID, s.Info
	m.title, m.paused = s.Info.Title, s.Info.PausedReason
	m.revision, m.execGen, m.running = s.Revision, s.ExecutionGeneration, s.Running
	m.lastSeq, m.pending = s.LastSequence, s.Pending
	m.prompts = append([]protocol.Prompt(nil), s.Prompts...)
	m.entries, m.live, m.gap = transcript(s.Messages, m.failed), -1, true
	m.keepFolds(old)
	m.renderAll()
	m.resetChoice()
}

// keepFolds carries the unfolded outputs and the selected call of the
// entries a rebuild replaced over to the new ones (by tool call id).
func (m *Model) keepFolds(old []entry) {
	selID := ""
	if m.sel >= 0 && m.sel < len(old) {
		selID = old[m.sel].id
	}
	m.sel = -1
	open := map[string]bool{}
	for _, e := range old {
		if e.kind == kindTool && e.open {
			open[e.id] = true
		}
	}
	for i, e := range m.entries {
		if e.kind != kindTool {
			continue
		}
		m.entries[i].open = open[e.id]
		if selID != "" && e.id == selID {
			m.sel = i
		}
	}
}

// onEvent applies an event of the current connection and reads the next.
// While an attach runs, events are held for applyHeld.
func (m *Model) onEvent(msg eventMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	var next tea.Cmd
	if m.c != nil {
		next = nextEvent(m.c, m.gen)
	}
	if m.attaching > 0 {
		m.held = append(m.held, msg.ev)
		return next
	}
	return tea.Batch(next, m.event(msg.ev))
}

// applyHeld applies the events read during an attach, after its snapshot.
func (m *Model) applyHeld(held []protocol.Event) tea.Cmd {
	var cmds []tea.Cmd
	for i, ev := range held {
		if m.attaching > 0 { // a replay gap started another attach: hold the rest
			m.held = append(m.held, held[i:]...)
			break
		}
		cmds = append(cmds, m.event(ev))
	}
	return tea.Batch(cmds...)
}

// event applies one event of the attached session unless the snapshot
// already held it.
func (m *Model) event(ev protocol.Event) tea.Cmd {
	if ev.SessionID != m.sid {
		return nil
	}
	if ev.Seq > 0 {
		if ev.Seq <= m.lastSeq {
			return nil
		}
		m.lastSeq = ev.Seq
	}
	if ev.Type == protocol.EventReplayGap {
		m.note = "fell behind the session; reloading"
		return m.attachCmd(attach{old: m.sid, subID: m.subID})
	}
	m.apply(ev)
	if mcpToolFailed(ev) && m.c != nil {
		return mcpStatusCmd(m.c, m.gen, false)
	}
	return nil
}

// apply changes the view state by one event.
func (m *Model) apply(ev protocol.Event) {
	switch ev.Type {
	case protocol.EventSessionInfo:
		var p protocol.SessionInfoPayload
		if decode(ev.Payload, &p) {
			m.pending, m.running, m.paused = p.Pending, p.Running, p.PausedReason
			m.execGen, m.revision = p.ExecutionGeneration, p.Revision
			m.infoExtras(ev.Payload)
		}
	case protocol.EventMessageStart:
		m.startTurn(ev)
	case protocol.EventMessageDelta:
		var p protocol.DeltaPayload
		if decode(ev.Payload, &p) {
			m.delta(p.Text)
		}
	case protocol.EventToolStart, protocol.EventToolComplete:
		m.toolEvent(ev)
	case protocol.EventHookRun:
		m.hookRun(ev)
	case protocol.EventApprovalRequest, protocol.EventClarifyRequest:
		m.addPrompt(ev)
	case protocol.EventApprovalSettled, protocol.EventClarifySettled:
		m.settlePrompt(ev)
	case protocol.EventMessageComplete:
		var p protocol.MessageCompletePayload
		if decode(ev.Payload, &p) {
			m.complete(p)
		}
	case protocol.EventSessionUnknown:
		var p protocol.SessionUnknownPayload
		if decode(ev.Payload, &p) {
			m.addNote(fmt.Sprintf("the gateway stopped during a turn: admission %s is unknown "+
				"(settle it with `hermes sessions resolve %s %s`)", p.AdmissionID, m.sid, p.AdmissionID))
		}
	}
}

func decode(raw json.RawMessage, v any) bool { return json.Unmarshal(raw, v) == nil }

// startTurn shows the admission's prompt as the user's line.
func (m *Model) startTurn(ev protocol.Event) {
	m.endLive()
	m.running, m.execGen, m.gap = true, ev.ExecutionGeneration, false
	text, ok := m.texts[ev.AdmissionID]
	for _, p := range m.pending {
		if p.AdmissionID == ev.AdmissionID {
			text, ok = p.Text, true
		}
	}
	if ok {
		m.entries = append(m.entries, entry{kind: kindUser, text: text})
	}
}

// delta extends the streaming assistant entry.
func (m *Model) delta(text string) {
	if m.gap {
		return
	}
	if m.live < 0 {
		m.entries = append(m.entries, entry{kind: kindAssistant})
		m.live = len(m.entries) - 1
	}
	m.entries[m.live].text += text
}

func (m *Model) toolEvent(ev protocol.Event) {
	m.endLive()
	m.gap = false
	if ev.Type == protocol.EventToolStart {
		var p protocol.ToolStartPayload
		if decode(ev.Payload, &p) {
			m.entries = append(m.entries, entry{kind: kindTool, tool: p.Name, id: p.ToolID,
				text: argSummary(p.Name, p.Args), state: toolRunning})
		}
		return
	}
	var p protocol.ToolCompletePayload
	if decode(ev.Payload, &p) {
		out := p.Result
		if p.Truncated {
			out += "\n[output truncated in the event]"
		}
		errText := ""
		if p.Error != "" {
			// the stored result's reading, so a reconnect shows the same line
			errText = cmp.Or(toolError(p.Name, p.Result), p.Error)
			m.failed[p.ToolID] = errText
		}
		finishTool(m.entries, p.ToolID, out, errText)
	}
}

// complete ends the turn: the final text is authoritative (it also fills
// what a reconnect missed).
func (m *Model) complete(p protocol.MessageCompletePayload) {
	switch {
	case m.live >= 0 && p.Text != "":
		m.entries[m.live].text = p.Text
	case m.live < 0 && p.Text != "" && !m.shown(p.Text):
		m.entries = append(m.entries, entry{kind: kindAssistant, text: p.Text})
	}
	if m.live < 0 && p.Text != "" {
		m.renderMarkdown(len(m.entries) - 1)
	}
	m.endLive()
	m.gap, m.running = false, false
	if p.Outcome != protocol.OutcomeCompleted {
		note := "turn " + p.Outcome
		if p.Error != "" {
			note += ": " + p.Error
		}
		m.addNote(note)
	}
	delete(m.texts, p.AdmissionID)
}

// shown reports whether the transcript already ends with the assistant
// text: a snapshot taken after the turn's last message was stored but
// before the turn settled holds it, and message.complete repeats it.
func (m *Model) shown(text string) bool {
	for i := len(m.entries) - 1; i >= 0; i-- {
		if m.entries[i].kind != kindNote {
			return m.entries[i].kind == kindAssistant && m.entries[i].text == text
		}
	}
	return false
}

func (m *Model) addNote(text string) {
	m.endLive()
	m.entries = append(m.entries, entry{kind: kindNote, text: text})
}

// endLive ends the streaming assistant entry: its text is complete and
// shown as markdown from now on.
func (m *Model) endLive() {
	if m.live >= 0 {
		m.renderMarkdown(m.live)
	}
	m.live = -1
}

func (m *Model) addPrompt(ev protocol.Event) {
	var p protocol.Prompt
	if !decode(ev.Payload, &p) {
		return
	}
	if p.Kind == "" {
		p.Kind = "approval"
		if ev.Type == protocol.EventClarifyRequest {
			p.Kind = "clarify"
		}
	}
	if !slices.ContainsFunc(m.prompts, func(q protocol.Prompt) bool { return q.PromptID == p.PromptID }) {
		m.prompts = append(m.prompts, p)
	}
}

func (m *Model) settlePrompt(ev protocol.Event) {
	var p protocol.ApprovalSettledPayload
	if !decode(ev.Payload, &p) {
		return
	}
	i := slices.IndexFunc(m.prompts, func(q protocol.Prompt) bool { return q.PromptID == p.PromptID })
	if i < 0 {
		return
	}
	if i == 0 {
		m.resetChoice()
	}
	if m.prompts[i].Kind == "approval" {
		m.addNote(fmt.Sprintf("%s: %s", m.prompts[i].Command, settledText(p)))
	}
	m.prompts = slices.Delete(m.prompts, i, i+1)
}

func settledText(p protocol.ApprovalSettledPayload) string {
	switch p.Choice {
	case protocol.ChoiceDeny:
		return "denied"
	case "":
		return "settled"
	}
	return "approved (" + p.Choice + ")"
}

func (m *Model) resetChoice() {
	m.choice, m.picked = 0, map[int]bool{}
}
