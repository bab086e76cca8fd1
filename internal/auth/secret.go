package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"log/slog"
)

// secretBytes is the entropy of every ticket and token: 256 bits.
const secretBytes = 32

// randomToken returns n bytes from crypto/rand, base64url without padding.
// crypto/rand.Read never fails on supported platforms (Go ≥ 1.24 aborts the
// process instead), so there is no error to return.
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// NewSecretToken returns 32 random bytes, base64url without padding: the
// legacy dashboard token and the per-process internal credential. The error
// is kept for callers that treat randomness as fallible; it is always nil.
func NewSecretToken() (string, error) { return randomToken(secretBytes), nil }

// EqualSecret compares two secrets in constant time. Both sides are hashed
// first, so neither the content nor the length of the expected secret leaks
// through timing. Empty secrets never match.
func EqualSecret(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// Secret is a credential held in memory. It redacts itself in fmt, slog and
// JSON so it cannot reach a log or a reply by accident; Reveal returns the
// value for the one place that must send or compare it.
type Secret struct{ v string }

// NewSecret wraps a credential value.
func NewSecret(v string) Secret { return Secret{v: v} }

// Reveal returns the credential itself.
func (s Secret) Reveal() string { return s.v }

// IsZero reports whether no credential is held.
func (s Secret) IsZero() bool { return s.v == "" }

// Equal compares the credential with a presented value in constant time.
func (s Secret) Equal(presented string) bool { return EqualSecret(s.v, presented) }

const redacted = "[REDACTED]"

func (s Secret) String() string               { return redacted }
func (s Secret) GoString() string             { return redacted }
func (s Secret) LogValue() slog.Value         { return slog.StringValue(redacted) }
func (s Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }
