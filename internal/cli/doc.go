// Package cli is the composition root of the hermes binary: it parses the
// command line (a cobra command tree, root.go) and runs the daemon (gateway
// run), the admin verbs over the control socket and the WebSocket protocol,
// and the clients.
//
// It is the one package that may import any internal package, both sides of
// the wire; every other package must never import it, so the binary is wired
// in one place (cmd/hermes is its only importer).
package cli
