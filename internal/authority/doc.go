// Package authority is the one execution owner of a profile: it restores
// sessions from their receipts, admits prompts durably, runs each session's
// FIFO one turn at a time, and holds the approval and clarify waiters that
// outlive every viewer.
//
// It must never import the transports that call it (server, dashboard,
// control, rpc), the daemon that wires it, nor what the daemon wires beside
// it (config, metrics, mcp): settings arrive in Options, measurements leave
// through the Observer interface, and MCP tools arrive through the MCPTools
// func the daemon supplies.
//
// # Invariants
//
//   - Nothing becomes visible in memory before its commit: a session is live
//     only after its create transaction (or a restore that passed every
//     receipt check); an event reaches viewers only after the transaction
//     that journaled it committed (events.Hub.Commit).
//   - Every write runs in store.InTx fenced by this authority's epoch. A stale
//     epoch (another daemon owns the database) changes nothing; the authority
//     stops executing.
//   - One executor per live session at a time (execqueue style: started on
//     demand by kick, exits when the FIFO is empty or blocked). No lock is held
//     across a turn; live.mu guards only the fields declared under it.
//   - An admission is claimed (queued → started, generation+1) before any model
//     request, and settled exactly once. A crash between the two leaves it
//     started; the next epoch marks it unknown and it never runs again. An
//     unknown row blocks its session's FIFO until prompt.resolve_unknown.
//   - A launch api_key lives only in memory. After a restart the session's FIFO
//     pauses (paused_reason launch_credentials_unavailable) until a viewer
//     re-supplies the identical key; it never falls back to the profile key.
//   - A pending approval or clarify prompt belongs to the running generation.
//     It survives every viewer closing; it does not survive the process (the
//     generation becomes unknown).
//
// # Concurrency
//
// Admissions into different sessions that arrive together share one
// transaction and one fsync (group commit, groupcommit.go); each caller
// keeps its session's hub lock until its events are published, so a batch
// never holds two writes of one session and journal order is publish order.
//
// Authority.mu guards the live-session map. Each live session has its own
// mutex for its execution state (receipt and launch key, its executor and
// reservation, and the running turn: one activeTurn holding the claimed
// generation, the turn's cancel and its pending prompts, nil when idle),
// taken only in live's small methods (live.go). Executors are goroutines
// owned by the Authority and joined by Close.
package authority
