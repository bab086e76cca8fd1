package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/hermes-gateway/hermes/internal/ids"
)

// routePrefix is the route of every LOCAL dm session of the main profile.
const routePrefix = "agent:main:local:dm:"

// receiptPrefix is the state_meta key prefix of creation receipts.
const receiptPrefix = "gateway.local_policy.v1:"

// credentialPrefix prefixes Policy.CredentialRef when a launch api_key was given.
const credentialPrefix = "launch:"

// LogicalID is the deterministic logical session id of a create request:
// "local-" + hex sha256 of the compact JSON array [profileID, subject,
// requestID] (no spaces, no HTML escaping).
func LogicalID(profileID, subject, requestID string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// Encoding a []string cannot fail.
	_ = enc.Encode([]string{profileID, subject, requestID})
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return "local-" + hex.EncodeToString(sum[:])
}

// RouteKey is the gateway_routing session key of a logical session.
func RouteKey(logicalID string) string { return routePrefix + logicalID }

// ReceiptKey is the state_meta key of a logical session's creation receipt.
func ReceiptKey(logicalID string) string { return receiptPrefix + logicalID }

// IDFromReceiptKey returns the logical id of a receipt key, and false when
// key is not a receipt key.
func IDFromReceiptKey(key string) (string, bool) {
	if len(key) <= len(receiptPrefix) || key[:len(receiptPrefix)] != receiptPrefix {
		return "", false
	}
	return key[len(receiptPrefix):], true
}

// CredentialRef is the receipt's reference to a launch api_key: a short
// fingerprint that lets a later session.resume prove it re-supplies the same
// key without the key ever being stored.
func CredentialRef(apiKey string) string {
	sum := sha256.Sum256([]byte(apiKey))
	return credentialPrefix + hex.EncodeToString(sum[:8])
}

// newRequestID is the request id of a create without one: 32 random hex
// digits (no lost-ACK protection, since the client cannot repeat it).
func newRequestID() string { return ids.New("", 16) }
