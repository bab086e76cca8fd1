// Package tui is the terminal UI of `hermes chat` (source tui), built on
// bubbletea. It speaks to the gateway only through internal/client and
// internal/protocol; the command line (internal/cli) supplies the
// connection factory.
//
// It may import only client, protocol and ids, and must never import the
// server side (store, authority, server, daemon, events, tools, sandbox, …),
// not even transitively: it is a client like any other
// (docs/architecture.md, "Clients stay clients").
//
// # Shape
//
// Model keeps the view state of one attached session: the transcript
// (rebuilt from every resume snapshot, then extended by events), the
// session's FIFO (pending admissions from snapshots and session.info), the
// pending approval and clarify prompts, and the session picker. Update never
// does IO: every call, the dial and the wait for the next event are tea.Cmds
// (msgs.go) whose results come back as messages tagged with the connection
// generation, so results of a dropped connection are ignored.
//
// # Transcript
//
// Assistant text streams as plain text; when the message ends (complete,
// a tool call, a note) it is rendered as markdown with glamour at the frame
// width, in Update, so View only lays out lines (markdown.go). Tool calls
// are one line each (✓, or ✗ with the error); their output is folded:
// ctrl+o unfolds the selected call, by default the latest with output, and
// ctrl+↑/↓ select another (keys.go). A snapshot's tool results carry no
// error flag, so a rebuilt call is failed when a tool.complete event said
// so earlier, else when its text is one of the gateway's failure texts
// (toolresult.go).
//
// # Events and reconnects
//
// Exactly one nextEvent command reads a connection's Events at a time; it is
// re-issued after each event. When the connection ends the model dials
// again (with backoff), resumes the session and rebuilds the transcript from
// the snapshot; journaled events at or below the snapshot's last_sequence
// are duplicates and dropped, so no line appears twice. The gateway takes
// the snapshot and subscribes under one lock, so the events after
// last_sequence all arrive on the new subscription; events read while an
// attach runs on a live connection (/new, /compress, the picker, a replay
// gap) are held and applied after the snapshot, never before it. Deltas
// carry no sequence: after a snapshot they are ignored until the next
// journaled message or tool event, and the full text of a message that was
// streaming arrives with message.complete (which is not shown again when
// the snapshot already ends with it).
//
// Leaving the UI (/quit, ctrl+c) closes the connection only: the gateway
// keeps running the turn and its prompts wait for any viewer.
package tui
