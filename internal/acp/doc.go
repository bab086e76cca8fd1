// Package acp is `hermes acp`: an Agent Client Protocol agent on stdio
// (newline-delimited JSON-RPC 2.0) whose sessions are gateway sessions of
// source acp. It speaks to the gateway only through internal/client and
// internal/protocol.
//
// It may import only client, protocol and ids, and must never import the
// server side (store, authority, server, daemon, events, tools, sandbox, …),
// not even transitively: it is a client like any other
// (docs/architecture.md, "Clients stay clients").
//
// Mapping:
//
//	initialize            → capabilities (loadSession)
//	session/new           → session.create {source: acp, cwd, editor: {mcpServers}}
//	session/load          → session.resume, then the transcript replayed as session/update
//	session/prompt        → prompt.submit; events stream back as session/update
//	                        (agent_message_chunk, agent_thought_chunk, tool_call,
//	                        tool_call_update, plan from the todo tool) until the
//	                        admission's message.complete, whose outcome is the stopReason
//	session/cancel        → session.interrupt (prompt.cancel while still queued)
//	approval.request      → session/request_permission, the chosen option → approval.respond
//	clarify.request       → session/request_permission with the choices as options
//	                        (no choices, or a cancelled request: an empty answer)
//
// # Goroutines
//
// Serve owns every goroutine it starts and joins them before it returns:
// the stdin reader (the caller's goroutine), one goroutine per in-flight
// request handler, the event pump of the current gateway connection, and
// one goroutine per permission request. The pump alone owns the per-session
// turn state; handlers talk to it over a channel, so events that arrive
// before a prompt.submit reply are buffered by admission and none is lost.
package acp
