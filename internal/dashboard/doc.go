// Package dashboard is the web dashboard of the gateway: the browser login
// paths, the dashboard session behind a cookie, the HTTP mutation (CSRF)
// gate, the browser's WebSocket tickets, the per-process internal
// credential, the terminal pane and the embedded web UI (docs/protocol.md#gates).
//
// It may import only auth, protocol, server and gate, and must never import
// authority, store or daemon: a browser reaches sessions through /api/ws
// like every other client, and the terminal pane is the hermes binary
// (`hermes chat`) in a child process.
//
// A *Dashboard is a server.Dashboard: the server mounts it on every route
// but /api/ws (behind its Host guard and security headers) and delegates the
// ?ticket= and ?internal= upgrades of /api/ws to AuthenticateWS.
//
// Sessions. A dashboard session is opened either by the one-time link that
// `hermes dashboard` prints (GET /auth/link?ticket=, a dashboard-login
// ticket minted over the control socket; subject dashboard:uid:N; cookie
// SameSite=Strict) or, in gated mode (dashboard.public_url set), by OIDC
// authorization code + PKCE + state + nonce (subject
// oidc:<issuer-hash>:<sub>; cookie SameSite=Lax, because a Strict cookie is
// not sent on the redirect back from the identity provider). The session id
// is 256 random bits; only its sha256 is kept, in memory, with an idle and
// an absolute expiry. Login always mints a new id (a planted cookie never
// becomes authenticated) and ends the one the browser presented.
//
// Gates. Every mutating HTTP route (ws-ticket, logout, the terminal pane)
// needs a session (cookie, or Authorization: Bearer <session id>) and an
// exactly allow-listed Origin — http://127.0.0.1:PORT, http://localhost:PORT,
// http://[::1]:PORT and, in gated mode, the origin of public_url — or, when
// the browser sends no Origin, Sec-Fetch-Site: same-origin. No route sends
// CORS headers; a preflight (OPTIONS) is 403.
//
// Secrets. Tickets, session ids, the OIDC state/nonce/verifier and the
// internal credential never appear in a log line, a page or an error; logs
// name the path, never the query string. The internal credential is handed
// to exactly one place: the environment of the terminal pane's child.
//
// Concurrency. Every store (sessions, WS tickets, pending OIDC logins) is
// guarded by its own mutex with no I/O under it and sweeps expired entries
// on use; the package starts no background goroutine. Each terminal pane
// owns a child process and one copy goroutine, both ended and joined when
// its WebSocket closes or Close is called.
package dashboard
