package daemon

import (
	"log/slog"
	"strings"
)

// redactAttr is the last line of defence of the JSON log: any attribute whose
// key names a secret is replaced, whatever a caller passed.
func redactAttr(_ []string, a slog.Attr) slog.Attr {
	k := strings.ToLower(a.Key)
	for _, s := range []string{"ticket", "token", "secret", "cookie", "api_key", "apikey", "password", "authorization"} {
		if strings.Contains(k, s) {
			return slog.String(a.Key, "[redacted]")
		}
	}
	return a
}
