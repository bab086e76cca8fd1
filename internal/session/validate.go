package session

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// Limits of text fields (runes).
const (
	maxRequestID = 256
	maxText      = 1024 // model, provider (docs/protocol.md#create-fields)
	maxTitle     = 200
	maxEcho      = 64 // how much of a bad value an error detail repeats
)

// Reasoning levels accepted by session.create ("" = the provider's default).
var reasoningLevels = []string{"", "none", "minimal", "low", "medium", "high", "xhigh"}

func invalid(format string, args ...any) *protocol.Error {
	return protocol.Errorf(protocol.ReasonInvalidParams, format, args...)
}

// clip shortens a client value repeated in an error detail.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxEcho {
		return s
	}
	return string([]rune(s)[:maxEcho]) + "…"
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

func validRequestID(id string) bool {
	n := utf8.RuneCountInString(id)
	return n >= 1 && n <= maxRequestID && utf8.ValidString(id)
}

func checkSource(s string) error {
	if _, ok := SourcePlatform[s]; !ok {
		return invalid("source: must be one of cli, tui, gui, acp, tool, oneshot")
	}
	return nil
}

// cleanCwd returns the cleaned form of an absolute path naming an existing
// directory. Symlinks are kept as given: the path the client chose is the
// one frozen and shown to the model.
func cleanCwd(field, p string) (string, error) {
	if p == "" || !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
		return "", invalid("%s: must be an absolute path", field)
	}
	p = filepath.Clean(p)
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		return "", invalid("%s: not an existing directory", field)
	}
	return p, nil
}

func checkModel(m string) error {
	if blank(m) || utf8.RuneCountInString(m) > maxText || !utf8.ValidString(m) {
		return invalid("model: must be a non-empty string")
	}
	return nil
}

func checkProvider(name string, known []string) error {
	if blank(name) || utf8.RuneCountInString(name) > maxText {
		return invalid("provider: must be a non-empty string")
	}
	if name != "custom" && !slices.Contains(known, name) {
		return invalid("provider: unknown provider %q", clip(name))
	}
	return nil
}

// checkBaseURL accepts http(s) URLs with a host and without userinfo, query
// or fragment; plain http only to a loopback host unless insecureOK
// (model.allow_insecure_http). The value is never echoed (it could carry
// credentials).
func checkBaseURL(raw string, insecureOK bool) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return invalid("base_url: not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return invalid("base_url: scheme must be http or https")
	case u.Host == "" || u.Hostname() == "":
		return invalid("base_url: needs a host")
	case u.User != nil:
		return invalid("base_url: must not contain userinfo")
	case u.RawQuery != "" || u.ForceQuery || strings.Contains(raw, "?"):
		return invalid("base_url: must not contain a query")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return invalid("base_url: must not contain a fragment")
	case !insecureOK && insecureHTTP(raw):
		return invalid("base_url: http:// is allowed only for loopback hosts (127.0.0.0/8, ::1, localhost); " +
			"use https, or set model.allow_insecure_http: true in config.yaml")
	}
	return nil
}

func checkReasoning(r string) error {
	if !slices.Contains(reasoningLevels, r) {
		return invalid("reasoning: must be one of none, minimal, low, medium, high, xhigh")
	}
	return nil
}

// parseMaxTurns accepts a positive integer, or 0, -1, "none", "unlimited"
// (all meaning no cap, returned as 0). Booleans, null, fractions and other
// negatives are rejected.
func parseMaxTurns(raw json.RawMessage) (int, error) {
	bad := invalid(`max_turns: must be a positive integer, 0, -1, "none" or "unlimited"`)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "none" || s == "unlimited" {
			return 0, nil
		}
		return 0, bad
	}
	var n int
	if bytes.ContainsAny(raw, ".eE") || json.Unmarshal(raw, &n) != nil {
		return 0, bad // bool, null, object, fraction, overflow
	}
	switch {
	case n > 0:
		return n, nil
	case n == 0 || n == -1:
		return 0, nil
	}
	return 0, bad
}

// CheckTitle validates a session title (session.create title and
// session.mutate rename): 1..200 characters, not blank, no control
// characters and no bidi controls, so that no client can be made to show
// a title other than its text (protocol.Spoofing).
func CheckTitle(t string) error {
	if blank(t) || utf8.RuneCountInString(t) > maxTitle || !utf8.ValidString(t) {
		return invalid("title: must be 1..200 characters, not blank")
	}
	if strings.IndexFunc(t, unicode.IsControl) >= 0 || protocol.ContainsSpoofing(t) {
		return invalid("title: must not contain control characters or bidi controls " +
			"(U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)")
	}
	return nil
}

// canonicalEditor validates the acp editor descriptor: a JSON object, only
// with source acp. It is frozen in canonical form.
func canonicalEditor(raw json.RawMessage, source string) (json.RawMessage, error) {
	if source != "acp" {
		return nil, invalid("editor: only valid with source acp")
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&obj) != nil || obj == nil || dec.More() {
		return nil, invalid("editor: must be an object")
	}
	out, err := CanonicalJSON(obj)
	if err != nil {
		return nil, invalid("editor: must be an object")
	}
	return out, nil
}

func checkSkillNames(names []string) error {
	if len(names) == 0 {
		return invalid("skills: must be a non-empty array")
	}
	for _, n := range names {
		if blank(n) {
			return invalid("skills: names must be non-empty strings")
		}
	}
	return nil
}
