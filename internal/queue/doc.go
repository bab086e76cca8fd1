// Package queue declares the admission state machine of a session FIFO as
// data: the persisted statuses, the terminal outcomes, and the transition
// table that the store consults before every move of a session_admissions
// row. It has no I/O and no concurrency; callers serialize moves per row
// (the store does so inside one BEGIN IMMEDIATE transaction).
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
// What each persisted status means after a crash (the crash semantics are
// part of the state; recovery relies on them):
//
//   - Queued: the admission committed and was acknowledged, nothing ran. After
//     a crash it runs exactly once, in FIFO (seq) order, once the daemon is
//     ready.
//   - Started: a claim committed in epoch E with a fresh execution generation;
//     the turn may have had side effects. If the daemon dies, the next epoch
//     moves it to Unknown (Orphan) because nobody can tell how far it got.
//   - Unknown: never replayed automatically. It blocks every later admission
//     of its session until an operator resolves it (Resolve → Interrupted).
//   - Terminal: final, with exactly one outcome. A retry of the same
//     submission returns this row's receipt; nothing moves it again.
//
// Invariants: a row has an outcome if and only if it is Terminal; Terminal
// has no outgoing transition; a session has at most one Started row and no
// row is claimed while an Unknown row of the same session exists (the second
// and third are enforced by the store's claim, which reads the whole pending
// set of the session inside the claiming transaction).
package queue
