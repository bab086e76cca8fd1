// Package metrics is the gateway's Prometheus registry: the typed
// instruments the authority reports to (turns, model requests, tools,
// prompts), the gauges read on scrape from the store, the hub, the server
// and the process tracker, and the `GET /metrics` listener.
//
// It is the only package that imports prometheus. Other packages report
// through plain method calls (the authority's Observer interface, which
// *Metrics implements) or expose a counter the daemon hands to Sources as a
// func; neither side knows of the other. So it imports nothing internal and
// must never import authority, store, events or server.
//
// No label carries user content: label values come from fixed sets
// (outcomes, admission statuses, prompt kinds, token kinds, file names) or
// from names the caller has already reduced to one (tool names of built-in
// tools, every other tool as "mcp"). Titles, prompts, paths, session ids
// and commands never become labels.
package metrics
