package session

import (
	"net"
	"net/url"
	"slices"
	"strings"
)

// Key binding (issue 10 item 3). A key from config.yaml/.env belongs to the
// base_url it was configured with: the profile model's key to model.base_url,
// a named provider's key to that provider's base_url. Build records in
// Policy.KeyEndpoint which configured endpoint (if any) the session's
// base_url equals; ProfileKeyName re-checks it against the current config
// before each use, so a key never follows a session to another endpoint,
// nor to an endpoint whose configured URL has since changed.
const (
	// KeyEndpointNone: the session's base_url is not a configured one (or
	// the session ignores user config); it runs with its launch api_key or
	// with no key at all.
	KeyEndpointNone = "none"
	// keyEndpointLegacy: a receipt written before key binding existed; the
	// same rule is applied to the current config at each use.
	keyEndpointLegacy = ""
	// KeyEndpointModel: the session's base_url is model.base_url.
	KeyEndpointModel = "model"
	// keyEndpointProvider prefixes a named provider: "provider:NAME".
	keyEndpointProvider = "provider:"
)

// keyEndpoint names the configured endpoint whose URL equals baseURL. The
// session's own provider wins, then the profile model, then the named
// providers in name order.
func keyEndpoint(baseURL, provider string, d Defaults) string {
	if u, ok := d.Providers[provider]; ok && SameEndpoint(u, baseURL) {
		return keyEndpointProvider + provider
	}
	if SameEndpoint(d.BaseURL, baseURL) {
		return KeyEndpointModel
	}
	for _, name := range sortedKeys(d.Providers) {
		if SameEndpoint(d.Providers[name], baseURL) {
			return keyEndpointProvider + name
		}
	}
	return KeyEndpointNone
}

// ProfileKeyName is the provider argument of the profile key lookup
// (authority.Settings.ProfileKey) for a session, given the current config's
// defaults d; ok is false when the session may use no configured key: its
// base_url matched none at creation, the session ignores user config, or
// the configured URL has changed since. The lookup contract is: "" is the
// profile model's key (model.api_key_env), a provider name is that
// provider's own key.
func ProfileKeyName(pol Policy, d Defaults) (name string, ok bool) {
	if pol.SafeMode || pol.IgnoreUserConfig {
		return "", false
	}
	if pol.KeyEndpoint == keyEndpointLegacy {
		pol.KeyEndpoint = keyEndpoint(pol.BaseURL, pol.Provider, d)
	}
	switch {
	case pol.KeyEndpoint == KeyEndpointModel:
		return "", SameEndpoint(d.BaseURL, pol.BaseURL)
	case strings.HasPrefix(pol.KeyEndpoint, keyEndpointProvider):
		name = strings.TrimPrefix(pol.KeyEndpoint, keyEndpointProvider)
		u, known := d.Providers[name]
		return name, known && name != "" && SameEndpoint(u, pol.BaseURL)
	}
	return "", false
}

// SameEndpoint reports whether two base URLs name the same endpoint once
// normalized (scheme and host lowercased, default port dropped, trailing
// slashes trimmed). Unparsable or empty URLs are never the same.
func SameEndpoint(a, b string) bool {
	na, okA := normalEndpoint(a)
	nb, okB := normalEndpoint(b)
	return okA && okB && na == nb
}

func normalEndpoint(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" || strings.Contains(host, ":") {
		host = net.JoinHostPort(host, port)
		host = strings.TrimSuffix(host, ":") // IPv6 without port: "[::1]"
	}
	return scheme + "://" + host + strings.TrimRight(u.EscapedPath(), "/"), true
}

// insecureHTTP reports whether raw is a plain http:// URL to a host that is
// not loopback (127.0.0.0/8, ::1, localhost): refused unless
// model.allow_insecure_http is true. Unparsable URLs are false (other checks
// refuse them).
func insecureHTTP(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(u.Scheme, "http") {
		return false
	}
	return !loopbackHost(u.Hostname())
}

func loopbackHost(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if slices.Contains([]string{"localhost", "localhost.localdomain"}, h) {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
