// Package queue declares the admission state machine of a session FIFO as
// data: the persisted statuses (each documented with what happens to a row
// in it on a crash), the terminal outcomes, and the transition table. The
// store moves a session_admissions row only by looking the (status, event)
// pair up in Transitions and running one UPDATE guarded by that status, so
// the table is the one place a move is decided. The package has no I/O and
// no concurrency; it imports only the standard library and must never import
// the store or anything above it.
//
// State diagram:
//
//	           admit                claim (generation+1)          settle
//	(none) ───────────▶ queued ─────────────────────▶ started ────────────▶ terminal(completed|failed|rejected|interrupted)
//	                      │                              │
//	               cancel │                              │ orphan: the owning epoch died
//	                      ▼                              ▼
//	            terminal(cancelled)                   unknown ──resolve──▶ terminal(interrupted)
//
// What each persisted status means after a crash (see the Status constants,
// which are the reference; recovery relies on them):
//
//   - Queued: kept; runs exactly once, in FIFO (seq) order, after the restart.
//   - Started: the next epoch moves it to Unknown (Orphan); never replayed.
//   - Unknown: kept; blocks its session until an operator resolves it.
//   - Terminal: kept; final, with exactly one outcome.
//
// Invariants: a row has an outcome if and only if it is Terminal; Terminal
// has no outgoing transition; a session has at most one Started row and no
// row is claimed while an Unknown row of the same session exists (the second
// and third are enforced by the store's claim, which reads the whole pending
// set of the session inside the claiming transaction).
package queue
