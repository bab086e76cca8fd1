package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

var (
	styleHeader = lipgloss.NewStyle().Bold(true)
	styleDim    = lipgloss.NewStyle().Faint(true)
	styleUser   = lipgloss.NewStyle().Bold(true)
	styleWarn   = lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true)
	styleFail   = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	styleOK     = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
)

// View renders the frame: header, transcript (bottom-aligned), queue,
// prompt or picker, input and help.
func (m *Model) View() tea.View {
	w := m.viewWidth()
	footer := m.footer(w)
	body := m.body(w)
	if m.height > 0 {
		room := max(m.height-2-len(footer), 0)
		if len(body) > room {
			body = body[len(body)-room:]
		}
		for len(body) < room {
			body = append([]string{""}, body...)
		}
	}
	lines := append([]string{m.header(w), styleDim.Render(strings.Repeat("─", w))}, body...)
	v := tea.NewView(strings.Join(append(lines, footer...), "\n"))
	v.AltScreen = true
	v.WindowTitle = "hermes chat"
	return v
}

// viewWidth is the width frames are laid out at (80 until the terminal
// reports its size).
func (m *Model) viewWidth() int {
	if m.width <= 0 {
		return 80
	}
	return m.width
}

func (m *Model) header(w int) string {
	name := m.title
	if name == "" {
		name = m.sid
	}
	if name == "" {
		name = "new session"
	}
	parts := []string{"hermes", vis(name)}
	if m.info.Model != "" {
		parts = append(parts, vis(m.info.Model))
	}
	if m.info.Cwd != "" {
		parts = append(parts, vis(m.info.Cwd))
	}
	state := m.status
	if m.running {
		state += " · running"
	}
	if m.paused != "" {
		state += " · paused: " + vis(m.paused)
	}
	// The usage stays outside the brackets, which hold the connection
	// state alone (scripts and tests wait for "[connected]").
	state = "[" + state + "]"
	if u := usageLabel(m.info.Usage); u != "" {
		state += " " + u
	}
	sb, sbStyle := sandboxLabel(m.opts.Sandbox)
	mcp := mcpLabel(m.mcp)
	room := w - len(state) - 2
	if sb != "" {
		room -= len(sb) + 2
	}
	if mcp != "" {
		room -= ansi.StringWidth(mcp) + 2
	}
	h := styleHeader.Render(ansi.Truncate(strings.Join(parts, " · "), max(room, 10), "…")) +
		"  " + styleDim.Render(state)
	if mcp != "" {
		h += "  " + styleWarn.Render(mcp)
	}
	if sb != "" {
		h += "  " + sbStyle.Render(sb)
	}
	return h
}

// sandboxLabel is the header's compact sandbox level: a warning when tools
// run unsandboxed, nothing when the gateway reports no sandbox.
func sandboxLabel(s *protocol.SandboxInfo) (string, lipgloss.Style) {
	switch {
	case s == nil:
		return "", styleDim
	case s.Level == protocol.SandboxLevelFull:
		return "sandbox: full", styleDim
	case s.Level == protocol.SandboxLevelLandlock:
		return "sandbox: landlock-only", styleDim
	case s.Level == protocol.SandboxLevelNone:
		return "SANDBOX OFF", styleWarn
	}
	return "sandbox: " + s.Level, styleDim
}

// body renders the transcript, wrapped to w.
func (m *Model) body(w int) []string {
	var out []string
	for i, e := range m.entries {
		if i > 0 && e.kind != kindTool && (e.kind != kindNote || m.entries[i-1].kind != kindNote) {
			out = append(out, "")
		}
		out = append(out, m.renderEntry(i, e, w)...)
	}
	return out
}

func (m *Model) renderEntry(i int, e entry, w int) []string {
	switch e.kind {
	case kindUser:
		return wrap(styleUser.Render("› "+visText(e.text)), w)
	case kindAssistant:
		if i == m.live {
			return wrap(visText(e.text)+"▍", w)
		}
		if e.md != nil {
			return e.md // rendered from visText(text) (markdown.go)
		}
		return wrap(visText(e.text), w)
	case kindTool:
		return m.toolLines(i, e, w)
	}
	return wrap(styleDim.Render("  · "+visText(e.text)), w)
}

// maxOutputLines bounds an unfolded tool output; longer outputs show their
// head and tail.
const maxOutputLines = 24

// toolLines is a tool call on one line (its error after ✗) and, unfolded,
// its output under it. The selected call is marked ▸; the one ctrl+o
// would unfold says so.
func (m *Model) toolLines(i int, e entry, w int) []string {
	mark := map[string]string{toolRunning: "…", toolDone: styleOK.Render("✓"), toolFailed: styleFail.Render("✗")}[e.state]
	lead := "  "
	if i == m.sel {
		lead = "▸ "
	}
	line := fmt.Sprintf("%s⚙ %s %s %s", lead, vis(e.tool), vis(e.text), mark)
	if e.err != "" {
		line += " " + styleFail.Render(vis(e.err))
	}
	if e.out != "" && !e.open && i == m.foldTarget() {
		line += styleDim.Render(fmt.Sprintf("  (%s, ctrl+o)", plural(outputLines(e.out), "line")))
	}
	lines := []string{ansi.Truncate(line, w, "…")}
	if !e.open {
		return lines
	}
	out := strings.Split(strings.TrimRight(e.out, "\n"), "\n")
	if len(out) > maxOutputLines {
		h := maxOutputLines / 2
		out = slices.Concat(out[:h], []string{fmt.Sprintf("… %s …", plural(len(out)-2*h, "more line"))}, out[len(out)-h:])
	}
	for _, l := range out {
		lines = append(lines, styleDim.Render(ansi.Truncate("    │ "+strings.ReplaceAll(visText(l), "\t", "    "), w, "…")))
	}
	return lines
}

func outputLines(s string) int { return strings.Count(strings.TrimRight(s, "\n"), "\n") + 1 }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// vis and visText escape text that came from the gateway, the model or a
// tool before it is styled: a command, path, title or tool output must not
// drive the terminal (ESC, CR, C1) or reorder the line (bidi controls).
// Styling is added after, so the frame's own escapes are kept.
func vis(s string) string     { return protocol.Visible(s) }
func visText(s string) string { return protocol.VisibleText(s) }

func wrap(s string, w int) []string {
	return strings.Split(ansi.Wrap(s, w, ""), "\n")
}

// footer renders what sits under the transcript.
func (m *Model) footer(w int) []string {
	out := []string{styleDim.Render(strings.Repeat("─", w))}
	if q := m.queueLine(); q != "" {
		out = append(out, ansi.Truncate(q, w, "…"))
	}
	switch {
	case m.picker != nil:
		out = append(out, m.pickerLines(w)...)
	case m.rewind != nil:
		out = append(out, m.rewindLines(w)...)
	case len(m.prompts) > 0:
		out = append(out, m.promptLines(w)...)
	}
	if m.note != "" {
		out = append(out, wrap(styleWarn.Render(visText(m.note)), w)...)
	}
	return append(out, m.input.View(), styleDim.Render(ansi.Truncate(helpText, w, "…")))
}

// queueLine shows the session's FIFO with statuses.
func (m *Model) queueLine() string {
	if len(m.pending) == 0 {
		return ""
	}
	parts := make([]string, 0, len(m.pending))
	for _, p := range m.pending {
		mark := map[string]string{protocol.StatusQueued: "·", protocol.StatusStarted: "▶", protocol.StatusUnknown: "?"}[p.Status]
		parts = append(parts, fmt.Sprintf("%s %s %q", mark, p.Status, clip(p.Text, 24)))
	}
	return "queue: " + strings.Join(parts, "  ")
}

func (m *Model) promptLines(w int) []string {
	p := m.prompts[0]
	more := ""
	if len(m.prompts) > 1 {
		more = fmt.Sprintf(" (+%d more)", len(m.prompts)-1)
	}
	if p.Kind != "clarify" {
		lines := wrap(styleWarn.Render("⚠ approval needed: "+vis(p.Description)+more), w)
		lines = append(lines, wrap("  $ "+vis(p.Command), w)...)
		return append(lines, "  "+choiceKeys(p.Choices))
	}
	lines := wrap(styleWarn.Render("? "+visText(p.Question)+more), w)
	for i, c := range p.Choices {
		cursor, box := "  ", ""
		if i == m.choice {
			cursor = "> "
		}
		if p.MultiSelect {
			box = "[ ] "
			if m.picked[i] {
				box = "[x] "
			}
		}
		lines = append(lines, ansi.Truncate("  "+cursor+box+vis(c), w, "…"))
	}
	if len(p.Choices) == 0 {
		lines = append(lines, styleDim.Render("  type the answer and press enter"))
	}
	return lines
}

func choiceKeys(choices []string) string {
	parts := make([]string, 0, len(choices))
	for _, c := range choices {
		if c != "" {
			parts = append(parts, "["+c[:1]+"]"+c[1:])
		}
	}
	return strings.Join(parts, "  ")
}

func (m *Model) pickerLines(w int) []string {
	lines := []string{styleHeader.Render("sessions") + styleDim.Render("  ↑/↓ move · enter attach · esc close")}
	if len(m.picker.rows) == 0 {
		return append(lines, "  (none)")
	}
	for i, r := range m.picker.rows {
		cursor := "  "
		if i == m.picker.cursor {
			cursor = "> "
		}
		where := "stored"
		if r.live {
			where = "live"
		}
		if r.Running {
			where = "running"
		}
		title := r.Title
		if title == "" {
			title = "(untitled)"
		}
		lines = append(lines, ansi.Truncate(fmt.Sprintf("%s%-24s %-7s %-6s %3d msgs  %s",
			cursor, vis(clip(title, 24)), where, vis(r.Source), r.MessageCount, vis(r.SessionID)), w, "…"))
	}
	return lines
}
