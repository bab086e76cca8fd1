// Package control is the owner-only unix control socket of the daemon
// (docs/protocol.md#control-socket): `identify`, `status` and `session-ticket`, and the client side
// (Call) used by the CLI and tests.
//
// It may import only auth (peers, subjects, tickets), protocol and
// strictjson, and must never import authority, store or server: the daemon
// answers through the Handler it passes to Listen, so the socket stays a
// transport.
//
// Wire: one JSON line in, one JSON line out, then close. Requests are
// {"protocol":1,"id":X,"verb":V,"params":{…}}, decoded by strictjson (unknown,
// case-variant and duplicate keys and trailing data are refused); replies are
// {"ok":true,"protocol":1,"id":X,"result":{…}} or
// {"ok":false,"protocol":1,"id":X,"error":"text"}.
//
// Invariants:
//   - The socket file is 0600 inside a 0700 directory owned by the daemon's
//     uid, and every peer is checked with SO_PEERCRED against the daemon's
//     own uid before a byte is read: root is not special, a root daemon
//     serves root only. The native subject is derived from that uid, never
//     from params.
//   - A session-ticket request from a process that descends from a tool
//     process the gateway started (Options.IsToolProcess over the /proc
//     ancestry), or whose environment carries HERMES_TOOL_PROCESS=1, is
//     refused. This is best effort against a same-uid process that
//     reparents itself (double fork to init); the sandbox closes that gap:
//     in its namespace mode the socket is not visible at all (the profile
//     home is hidden), and in every mode a peer whose /proc status shows
//     NoNewPrivs 1 with a seccomp filter (Seccomp 2), which no sandboxed
//     process can shed, is refused too.
//   - Tickets appear only in the one reply that carries them: never in a
//     log line, an error text, identify or status.
//   - Error texts sent to the peer are public: they come from a fixed table
//     (publicText); any other cause is logged and answered "internal error".
//
// Concurrency: Run owns the accept loop and one goroutine per connection
// (at most maxConns at once) and returns only after all of them exited.
// Closing the listener (Close) lets in-flight requests finish (each is
// bounded by ioTimeout); cancelling Run's context also closes them.
package control
