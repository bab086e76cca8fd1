package tui

import (
	"encoding/json"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// rebuild replaces the view state with a snapshot. Events at or below its
// last_sequence are already in it.
func (m *Model) rebuild(s protocol.Snapshot) {
	m.sid, m.subID, m.info = s.SessionID, s.SubscriptionID, s.Info
	m.title, m.paused = s.Info.Title, s.Info.PausedReason
	m.revision, m.execGen, m.running = s.Revision, s.ExecutionGeneration, s.Running
	m.lastSeq, m.pending = s.LastSequence, s.Pending
	m.prompts = append([]protocol.Prompt(nil), s.Prompts...)
	m.entries, m.live, m.gap = transcript(s.Messages), -1, s.Running
	m.resetChoice()
}

// onEvent applies an event of the current connection and reads the next.
func (m *Model) onEvent(msg eventMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	var next tea.Cmd
	if m.c != nil {
		next = nextEvent(m.c, m.gen)
	}
	ev := msg.ev
	if ev.SessionID != m.sid {
		return next
	}
	if ev.Seq > 0 {
		if ev.Seq <= m.lastSeq {
			return next
		}
		m.lastSeq = ev.Seq
	}
	if ev.Type == protocol.EventReplayGap {
		m.note = "fell behind the session; reloading"
		return tea.Batch(next, m.attachCmd(attach{old: m.sid, subID: m.subID}))
	}
	m.apply(ev)
	return next
}

// apply changes the view state by one event.
func (m *Model) apply(ev protocol.Event) {
	switch ev.Type {
	case protocol.EventSessionInfo:
		var p protocol.SessionInfoPayload
		if decode(ev.Payload, &p) {
			m.pending, m.running, m.paused = p.Pending, p.Running, p.PausedReason
			m.execGen, m.revision = p.ExecutionGeneration, p.Revision
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
	m.running, m.execGen, m.live, m.gap = true, ev.ExecutionGeneration, -1, false
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
	m.live, m.gap = -1, false
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
		state := toolDone
		if p.Error != "" {
			state = toolFailed
		}
		markTool(m.entries, p.ToolID, state)
	}
}

// complete ends the turn: the final text is authoritative (it also fills
// what a reconnect missed).
func (m *Model) complete(p protocol.MessageCompletePayload) {
	switch {
	case m.live >= 0 && p.Text != "":
		m.entries[m.live].text = p.Text
	case m.live < 0 && p.Text != "":
		m.entries = append(m.entries, entry{kind: kindAssistant, text: p.Text})
	}
	m.live, m.gap, m.running = -1, false, false
	if p.Outcome != protocol.OutcomeCompleted {
		note := "turn " + p.Outcome
		if p.Error != "" {
			note += ": " + p.Error
		}
		m.addNote(note)
	}
	delete(m.texts, p.AdmissionID)
}

func (m *Model) addNote(text string) {
	m.entries = append(m.entries, entry{kind: kindNote, text: text})
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
