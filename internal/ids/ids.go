// Package ids makes the gateway's random identifiers: admission, prompt,
// request, transport and instance ids, client request ids and tool-call ids.
// Every one is a fixed prefix followed by n bytes from crypto/rand in
// lowercase hex (2n digits), so a format is stated once at its call site,
// e.g. New("call_", 12) or New("", 16).
//
// Identifiers are not secrets: tickets, tokens and session cookies are
// made by auth (base64url, 256 bits) and never here. The package imports
// nothing internal and must stay a leaf every other package may use.
package ids

import (
	"crypto/rand"
	"encoding/hex"
)

// New returns prefix followed by nbytes random bytes in lowercase hex.
// crypto/rand.Read never fails on supported platforms (Go ≥ 1.24 aborts the
// process instead), so there is no error to return.
func New(prefix string, nbytes int) string {
	b := make([]byte, nbytes)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
