package config

import (
	"fmt"
	"io"
	"log/slog"
)

// Secret holds a credential. Every way of printing it — fmt verbs, String,
// slog (LogValue) and JSON — yields "[redacted]"; only Reveal returns the
// value, at the one place that sends it (the Authorization header).
type Secret string

const redacted = "[redacted]"

// Reveal returns the secret value.
func (s Secret) Reveal() string { return string(s) }

// IsZero reports whether no secret is held.
func (s Secret) IsZero() bool { return s == "" }

func (s Secret) String() string   { return redacted }
func (s Secret) GoString() string { return redacted }

// Format makes every fmt verb print "[redacted]".
func (s Secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, redacted) }

// LogValue redacts the secret in slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON redacts the secret in JSON.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }
