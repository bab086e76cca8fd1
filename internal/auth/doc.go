// Package auth holds the identity model of the gateway: the Principal a gate
// derives from a connection, its capability set, the subject namings of each
// surface, the native ticket store and the secret helpers (docs/protocol.md#control-socket, #gates).
//
// It may import only protocol and must never import the gates that call it
// (server, control, dashboard) nor store: tickets live in memory only, so a
// restart ends every one of them.
//
// Invariants:
//   - Identity and capabilities are derived by the server from how a
//     connection authenticated, never from request params. Caps is a value
//     type: a Principal cannot be widened through a shared map.
//   - A ticket is 32 bytes from crypto/rand, base64url without padding. The
//     store keeps only its sha256 digest; the ticket string itself is
//     returned once by Mint and never retained, logged or put into an error.
//   - A ticket is single use: the first presentation of a known digest
//     removes it, whatever the outcome (wrong purpose, expired or accepted).
//     Unknown, expired, replayed and wrong-purpose tickets all fail with the
//     same ErrBadTicket, so the answer is no oracle.
//   - Minting is never refused for capacity, so no process can lock others
//     out: each purpose has its own pool, and a peer over its share (or a
//     full pool) loses its own oldest unused tickets first (MintFor).
//   - Expiry uses the monotonic reading of the injected clock (time.Now by
//     default), so wall-clock jumps neither extend nor cut a ticket's life.
//
// Concurrency: Tickets is safe for concurrent use; one mutex guards its map
// and no I/O happens under it. The package starts no goroutines.
package auth
