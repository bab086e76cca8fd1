package daemon

import (
	"log/slog"
	"regexp"
	"strings"
)

// redactAttr is the last line of defence of the JSON log, whatever a caller
// passed: an attribute whose key names a secret is replaced, and every
// string or error value is scrubbed (scrubSecrets) of URL userinfo and
// queries and of key-looking strings, since upstream error text and
// transport errors can carry them.
func redactAttr(_ []string, a slog.Attr) slog.Attr {
	k := strings.ToLower(a.Key)
	for _, s := range []string{"ticket", "token", "secret", "cookie", "api_key", "apikey", "password", "authorization"} {
		if strings.Contains(k, s) {
			return slog.String(a.Key, "[redacted]")
		}
	}
	switch v := a.Value; v.Kind() {
	case slog.KindString:
		if s := v.String(); s != scrubSecrets(s) {
			return slog.String(a.Key, scrubSecrets(s))
		}
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, scrubSecrets(err.Error()))
		}
	}
	return a
}

var (
	// urlRE: scheme://[userinfo@]rest, where rest runs to a space or quote.
	urlRE = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)([^\s/?#@"'<>]*@)?([^\s?#"'<>]*)(\?[^\s#"'<>]*)?`)
	// keyRE: the usual provider key shapes and bearer credentials.
	keyRE = regexp.MustCompile(`(?i)\bbearer\s+[^\s"',]+|` +
		`\b(?:sk|pk|rk)[-_][A-Za-z0-9_-]{6,}|` +
		`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{10,}|\bgithub_pat_[A-Za-z0-9_]{10,}|` +
		`\bxox[abposr]-[A-Za-z0-9-]{6,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{20,}`)
)

// scrubSecrets removes URL userinfo and query strings and key-looking
// tokens from s. Hosts and paths stay: they say which endpoint failed.
func scrubSecrets(s string) string {
	s = urlRE.ReplaceAllStringFunc(s, func(u string) string {
		m := urlRE.FindStringSubmatch(u)
		out := m[1]
		if m[2] != "" {
			out += "[redacted]@"
		}
		out += m[3]
		if m[4] != "" {
			out += "?[redacted]"
		}
		return out
	})
	return keyRE.ReplaceAllString(s, "[redacted]")
}
