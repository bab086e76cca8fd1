// Package tui is the terminal UI of `hermes chat` (source tui), built on
// bubbletea. It speaks to the gateway only through internal/client and
// internal/protocol; the command line (internal/cli) supplies the
// connection factory.
//
// # Shape
//
// Model keeps the view state of one attached session: the transcript
// (rebuilt from every resume snapshot, then extended by events), the
// session's FIFO (pending admissions from snapshots and session.info), the
// pending approval and clarify prompts, and the session picker. Update never
// does IO: every call, the dial and the wait for the next event are tea.Cmds
// (conn.go) whose results come back as messages tagged with the connection
// generation, so results of a dropped connection are ignored.
//
// # Events and reconnects
//
// Exactly one nextEvent command reads a connection's Events at a time; it is
// re-issued after each event. When the connection ends the model dials
// again (with backoff), resumes the session and rebuilds the transcript from
// the snapshot; journaled events at or below the snapshot's last_sequence
// are duplicates and dropped, so no line appears twice. Deltas of a message
// that was streaming during the drop are not shown; its full text arrives
// with message.complete.
//
// Leaving the UI (/quit, ctrl+c) closes the connection only: the gateway
// keeps running the turn and its prompts wait for any viewer.
package tui
