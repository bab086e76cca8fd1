// Package mcp runs the Model Context Protocol servers whose tools the
// agent may call (issue 13), with the official Go SDK as the client.
//
// It may import only protocol (the MCPState names) and tools (every MCP tool
// is a tools.Tool), and must never import authority, agent or store: the
// daemon hands the authority a function that returns a session's MCP tools
// (authority.Options.MCPTools), so neither imports the other.
//
// # Invariants
//
//   - One running server per configuration (Config.Key, a hash of the whole
//     frozen configuration; one daemon serves one profile), shared by every
//     session that uses it: 50 sessions of one server are one process.
//   - A server starts on first use (Manager.Tools or CallMCP), is restarted
//     with backoff (1 s doubling to 1 min, reset after a minute of health)
//     after a crash while it is in use, and is stopped after IdleTimeout
//     without a call or a listing. A stopped server restarts at its next use.
//   - A stdio server runs under the tool sandbox (Options.Launcher, with its
//     own network setting; writable are its cwd and a private temp dir) and
//     leads its own process group; stopping it SIGKILLs the whole group.
//     Its pid is reported to Options.Processes, which keeps the groups in
//     tool-groups so that the next daemon ends what a killed one left.
//   - A call never hangs a turn: a server that dies during a call ends it
//     with an error result; a call over tool_timeout is cancelled
//     (the SDK sends notifications/cancelled) and ends with an error
//     result; a server that is failed or cannot start answers at once (or
//     within startup_timeout) with an error result naming the reason.
//   - notifications/tools/list_changed refreshes the server's tool list;
//     turns built afterwards see the new list, filtered by the frozen
//     enabled_tools/disabled_tools.
//
// # States (protocol.MCPState*)
//
//	stopped ──use──▶ starting ──initialized+listed──▶ ready ──idle──▶ stopped
//	                    │  ▲                            │
//	              error │  │ backoff                    │ crash
//	                    ▼  │                            ▼
//	                   failed ◀─────────────────────────┘   (failed ──idle──▶ stopped)
//
// # Goroutines
//
// Run owns the idle reaper; every started server has one supervisor
// goroutine (server.run) that owns its process, session and tool-list
// refreshes, and one goroutine that waits for its session's end. Close (or
// the end of Run's ctx) stops every supervisor and joins them.
package mcp
