package tui

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Options configure a Model.
type Options struct {
	// Client is an open connection to start with (nil: dial first).
	Client *client.Client
	// Dial opens a new authenticated connection; used for reconnects.
	Dial func(context.Context) (*client.Client, error)
	// Resume is the session to attach; "" creates one with Create.
	Resume string
	// Create is the session.create of a new session (and of /new, with a
	// fresh request_id).
	Create protocol.SessionCreateParams
	// Sandbox is the gateway's sandbox (runtime.describe), for the header;
	// nil shows none.
	Sandbox *protocol.SandboxInfo
	// MCPServers are the gateway's MCP servers (runtime.describe) until
	// the first mcp.status answers; the header shows the failed ones.
	MCPServers []protocol.MCPServerStatus
}

// Model is the bubbletea model of `hermes chat`. Its methods run on the
// bubbletea event loop only.
type Model struct {
	opts Options
	c    *client.Client // current connection; nil while dialing
	gen  int            // connection generation; older messages are dropped

	sid      string // attached logical session; "" before the first attach
	subID    string // subscription of the attach
	attached bool
	info     protocol.SessionInfo
	title    string
	revision int64
	execGen  int64 // execution generation of the running or last turn
	running  bool
	paused   string
	lastSeq  int64
	pending  []protocol.PendingAdmission
	texts    map[string]string // admission id → prompt text (own submissions)
	prompts  []protocol.Prompt // pending approvals and clarify requests, oldest first
	entries  []entry
	live     int               // index of the streaming assistant entry; -1 none
	gap      bool              // deltas of the current message were missed
	failed   map[string]string // tool id → error reported by tool.complete (outlives rebuilds)
	sel      int               // tool entry that ctrl+o folds; -1: the latest with output
	md       markdown          // renders completed assistant messages

	// attaching counts the attach commands of this connection whose
	// result has not arrived. Events read meanwhile are held and applied
	// after the last snapshot, so that nothing between a snapshot and its
	// subscription is lost (and nothing a snapshot holds shows twice).
	attaching int
	held      []protocol.Event

	input   textinput.Model
	choice  int          // clarify: highlighted choice
	picked  map[int]bool // clarify multi-select: chosen choices
	picker  *picker      // non-nil while the session picker is open
	rewind  *rewindFlow  // non-nil while /rewind is open (rewind.go)
	status  string       // connection state
	note    string       // last error or notice
	width   int          // terminal columns; 0 = unknown
	height  int          // terminal rows; 0 = unknown
	fatal   error        // why the UI quit on its own
	reading int          // gen+1 of the connection whose event reader runs; 0 none

	mcp        []protocol.MCPServerStatus // last known MCP servers (mcp.go)
	mcpPolling int                        // gen+1 of the connection whose mcp.status poll runs; 0 none
}

// New returns a model that attaches as opts says once Init runs.
func New(opts Options) *Model {
	in := textinput.New()
	in.Prompt = "> "
	in.Placeholder = "message, or /help"
	in.Focus()
	return &Model{opts: opts, c: opts.Client, texts: map[string]string{}, live: -1, input: in,
		picked: map[int]bool{}, failed: map[string]string{}, sel: -1, status: "connecting", mcp: opts.MCPServers}
}

// Init attaches on the initial connection, or dials one.
func (m *Model) Init() tea.Cmd {
	if m.c == nil {
		return dialCmd(m.opts.Dial, m.gen)
	}
	return m.attachCmd(attach{})
}

// attachCmd attaches this connection to the current session, or creates
// the first one.
func (m *Model) attachCmd(a attach) tea.Cmd {
	switch {
	case a.create != nil || a.sid != "":
	case m.sid != "":
		a.sid = m.sid
	case m.opts.Resume != "":
		a.sid = m.opts.Resume
	default:
		p := m.opts.Create
		a.create = &p
	}
	m.attaching++
	return attachCmd(m.c, m.gen, a)
}

// Err is why the UI ended on its own (e.g. the session does not exist).
func (m *Model) Err() error { return m.fatal }

// Close closes the current connection; the session and its turn go on.
func (m *Model) Close() {
	if m.c != nil {
		_ = m.c.Close()
		m.c = nil
	}
}

// Update applies one message; IO happens only in the returned commands.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		resized := msg.Width != m.width
		m.width, m.height = msg.Width, msg.Height
		m.input.SetWidth(max(msg.Width-4, 10))
		if resized {
			m.renderAll()
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case connectedMsg, dialFailedMsg, retryMsg, closedMsg, attachedMsg:
		return m, m.connection(msg)
	case eventMsg:
		return m, m.onEvent(msg)
	case resultMsg:
		return m, m.onResult(msg)
	case listMsg:
		m.onList(msg)
		return m, nil
	case checkpointsMsg, rewoundMsg:
		return m, m.onRewindMsg(msg)
	case mcpStatusMsg, mcpTickMsg:
		return m, m.onMCP(msg)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

// connection handles the life of the connection.
func (m *Model) connection(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case connectedMsg:
		if msg.gen != m.gen {
			return closeCmd(msg.c)
		}
		m.c, m.status = msg.c, "attaching"
		return m.attachCmd(attach{})
	case dialFailedMsg:
		if msg.gen != m.gen {
			return nil
		}
		m.status = "gateway unavailable; retrying"
		return retryCmd(m.gen)
	case retryMsg:
		if msg.gen != m.gen || m.c != nil {
			return nil
		}
		return dialCmd(m.opts.Dial, m.gen)
	case closedMsg:
		return m.onClosed(msg)
	case attachedMsg:
		return m.onAttached(msg)
	}
	return nil
}

// onClosed starts reconnecting when the current connection ended.
func (m *Model) onClosed(msg closedMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	closing := closeCmd(m.c)
	m.c, m.subID = nil, ""
	m.gen++
	m.status, m.attaching, m.held = "reconnecting", 0, nil
	if m.opts.Dial == nil {
		m.fatal = fmt.Errorf("connection to the gateway lost")
		return tea.Sequence(closing, tea.Quit)
	}
	return tea.Batch(closing, retryCmd(m.gen))
}

// onAttached rebuilds the view from a snapshot and makes sure the event
// reader runs.
func (m *Model) onAttached(msg attachedMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil
	}
	m.attaching = max(m.attaching-1, 0)
	if msg.err != nil {
		if !m.attached {
			m.fatal = fmt.Errorf("attach: %w", msg.err)
			return tea.Quit
		}
		m.note = "attach: " + msg.err.Error()
	} else {
		m.attached, m.status = true, "connected"
		m.rebuild(msg.snap)
	}
	mcp := m.mcpPollOnce()
	var held tea.Cmd
	if m.attaching == 0 {
		h := m.held
		m.held = nil
		held = m.applyHeld(h)
	}
	return tea.Batch(held, mcp, nextEventOnce(m)) // a closed connection reports itself in nextEvent
}

// nextEventOnce starts the event reader unless one is running for this
// connection generation.
func nextEventOnce(m *Model) tea.Cmd {
	if m.reading == m.gen+1 || m.c == nil {
		return nil
	}
	m.reading = m.gen + 1
	return nextEvent(m.c, m.gen)
}
