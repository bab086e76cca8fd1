package tui

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders completed assistant messages. Rendering happens in
// Update (when a message completes, a snapshot arrives or the width
// changes), so View only lays out lines. glamour v2 detects nothing about
// the terminal: the output is the same for a width on every machine, and
// bubbletea adapts its colors to the terminal when it writes the frame.
type markdown struct {
	width int                   // the width r wraps at; 0 before the first render
	r     *glamour.TermRenderer // nil when it could not be built (text stays plain)
}

// mdStyle is glamour's dark style without the document margin and the
// blank lines around the document: the transcript spaces its entries.
func mdStyle() glamour.TermRendererOption {
	st := styles.DarkStyleConfig
	zero := uint(0)
	st.Document.Margin = &zero
	st.Document.BlockPrefix, st.Document.BlockSuffix = "", ""
	return glamour.WithStyles(st)
}

// render returns text as markdown wrapped to width, or nil when it cannot
// (the caller shows the plain text).
func (md *markdown) render(text string, width int) []string {
	if md.r == nil || md.width != width {
		md.width = width
		md.r, _ = glamour.NewTermRenderer(mdStyle(), glamour.WithWordWrap(width))
	}
	if md.r == nil {
		return nil
	}
	out, err := md.r.Render(text)
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	return lines
}

func blank(line string) bool { return strings.TrimSpace(ansi.Strip(line)) == "" }

// renderMarkdown renders assistant entry i at the view width.
func (m *Model) renderMarkdown(i int) {
	if i >= 0 && i < len(m.entries) && m.entries[i].kind == kindAssistant {
		m.entries[i].md = m.md.render(visText(m.entries[i].text), m.viewWidth())
	}
}

// renderAll renders every completed assistant entry again (a snapshot, or
// a new width).
func (m *Model) renderAll() {
	for i := range m.entries {
		if i != m.live {
			m.renderMarkdown(i)
		}
	}
}
