// Package tools holds the agent's tools, the toolset registry, the
// dangerous-command classifier and the scrubbed environment of child
// processes. Tools know nothing of SQLite or WebSockets: everything they need
// from the session arrives in an Env.
//
// It may import only faults, sandbox (every command a tool starts goes
// through the Launcher) and strictjson (tool arguments), and must never
// import session, store, authority or mcp: a session's policy arrives in an
// Env, and mcp adapts its servers to the Tool interface, not the other way
// round.
package tools
