package tui

import (
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-gateway/hermes/internal/ids"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// helpText lists the slash commands and the fold keys.
const helpText = "/new  /reset  /compress  /rewind  /sessions  /title NAME  /stop  /quit · ctrl+o tool output, " +
	"ctrl+↑/↓ pick a tool, esc the latest — leaving never stops a turn"

// key routes a key press: the picker, then the fold keys, then a pending
// prompt, then the input.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	if k.String() == "ctrl+c" {
		return tea.Quit
	}
	if m.picker != nil {
		return m.pickerKey(k)
	}
	if m.rewind != nil {
		return m.rewindKey(k)
	}
	if m.foldKey(k.String()) {
		return nil
	}
	if len(m.prompts) > 0 {
		if cmd, used := m.promptKey(k); used {
			return cmd
		}
	}
	if k.String() == "enter" {
		return m.enter()
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// enter submits the input line or runs a slash command.
func (m *Model) enter() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	if text == "" {
		return nil
	}
	m.input.SetValue("")
	if strings.HasPrefix(text, "/") {
		return m.slash(text)
	}
	if m.c == nil || !m.attached {
		m.note = "not connected; the message was not sent"
		m.input.SetValue(text)
		return nil
	}
	return submitCmd(m.c, m.sid, text)
}

// slash runs a slash command.
func (m *Model) slash(line string) tea.Cmd {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	if name == "/quit" || name == "/q" || name == "/exit" {
		return tea.Quit
	}
	if name == "/help" {
		m.note = helpText
		return nil
	}
	if m.c == nil || !m.attached {
		m.note = "not connected"
		return nil
	}
	switch name {
	case "/new":
		p := m.opts.Create
		id := ids.New("tui-", 12)
		p.RequestID = &id
		m.texts = map[string]string{}
		return m.attachCmd(attach{old: m.sid, subID: m.subID, create: &p})
	case "/reset", "/compress":
		return mutateCmd(m.c, m.sid, m.revision, name[1:], map[string]string{})
	case "/title":
		if arg == "" {
			m.note = "usage: /title NAME"
			return nil
		}
		return mutateCmd(m.c, m.sid, m.revision, "rename", map[string]string{"title": arg})
	case "/sessions":
		return listCmd(m.c)
	case "/rewind":
		return m.openRewind()
	case "/stop":
		return interruptCmd(m.c, m.sid, m.execGen)
	}
	m.note = "unknown command " + name + "; " + helpText
	return nil
}

// onResult reports a finished call; reset and compress reload the
// transcript, which they replaced.
func (m *Model) onResult(r resultMsg) tea.Cmd {
	if r.err != nil {
		m.note = r.what + ": " + r.err.Error()
		if r.what == "submit" {
			m.input.SetValue(r.text)
		}
		return nil
	}
	m.note = ""
	switch r.what {
	case "submit":
		m.texts[r.rec.AdmissionID] = r.text
		if !slices.ContainsFunc(m.pending, func(p protocol.PendingAdmission) bool { return p.AdmissionID == r.rec.AdmissionID }) &&
			r.rec.Status == protocol.StatusQueued {
			m.pending = append(m.pending, protocol.PendingAdmission{AdmissionID: r.rec.AdmissionID, Status: r.rec.Status, Text: r.text})
		}
	case "rename", "reset", "compress":
		m.revision = max(m.revision, r.revision)
		m.note = r.what + " done"
		if r.what == "rename" {
			m.title = r.text
		} else if m.c != nil {
			return m.attachCmd(attach{old: m.sid, subID: m.subID})
		}
	}
	return nil
}

// promptKey answers the oldest pending prompt: o/s/a/d for an approval;
// arrows, space and enter for a clarify with choices (without choices the
// input line is the answer).
func (m *Model) promptKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	p := m.prompts[0]
	if p.Kind != "clarify" {
		c := matchChoice(k.String(), p.Choices)
		if c == "" || m.c == nil {
			return nil, true
		}
		return respondCmd(m.c, p, m.sid, c), true
	}
	if len(p.Choices) == 0 {
		if k.String() != "enter" || m.c == nil {
			return nil, false
		}
		answer := m.input.Value()
		m.input.SetValue("")
		return respondCmd(m.c, p, m.sid, answer), true
	}
	return m.clarifyKey(k, p), true
}

func (m *Model) clarifyKey(k tea.KeyPressMsg, p protocol.Prompt) tea.Cmd {
	switch k.String() {
	case "up", "k":
		m.choice = max(m.choice-1, 0)
	case "down", "j":
		m.choice = min(m.choice+1, len(p.Choices)-1)
	case "space":
		if p.MultiSelect {
			m.picked[m.choice] = !m.picked[m.choice]
		}
	case "enter":
		if m.c != nil {
			return respondCmd(m.c, p, m.sid, m.clarifyAnswer(p))
		}
	}
	return nil
}

func (m *Model) clarifyAnswer(p protocol.Prompt) string {
	if !p.MultiSelect {
		return p.Choices[m.choice]
	}
	var out []string
	for i, c := range p.Choices {
		if m.picked[i] {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		out = append(out, p.Choices[m.choice])
	}
	return strings.Join(out, ", ")
}

// matchChoice maps a key to an offered choice by its first letter.
func matchChoice(key string, choices []string) string {
	for _, c := range choices {
		if c != "" && key == c[:1] {
			return c
		}
	}
	return ""
}

// foldKey handles the keys of tool output: ctrl+o folds or unfolds the
// selected tool call (by default the latest one with output), ctrl+up and
// ctrl+down (or alt+) select an earlier or later call, esc goes back to
// following the latest.
func (m *Model) foldKey(key string) bool {
	switch key {
	case "ctrl+o":
		if i := m.foldTarget(); i >= 0 {
			m.entries[i].open = !m.entries[i].open
		}
	case "ctrl+up", "alt+up":
		m.sel = m.nextTool(m.foldTarget(), -1)
	case "ctrl+down", "alt+down":
		if m.sel >= 0 {
			m.sel = m.nextTool(m.sel, +1)
		}
	case "esc":
		if m.sel < 0 {
			return false
		}
		m.sel = -1
	default:
		return false
	}
	return true
}

// foldTarget is the tool entry ctrl+o acts on: the selected one, else the
// latest that has output; -1 when there is none.
func (m *Model) foldTarget() int {
	if m.sel >= 0 {
		return m.sel
	}
	for i := len(m.entries) - 1; i >= 0; i-- {
		if m.entries[i].kind == kindTool && m.entries[i].out != "" {
			return i
		}
	}
	return -1
}

// nextTool is the tool entry before (dir -1) or after (+1) entry from;
// from -1 with dir -1 is the latest. Past either end it stays at from.
func (m *Model) nextTool(from, dir int) int {
	i := from
	if from < 0 {
		i = len(m.entries)
	}
	for i += dir; i >= 0 && i < len(m.entries); i += dir {
		if m.entries[i].kind == kindTool {
			return i
		}
	}
	return from
}
