package tools

import (
	"slices"
	"strings"
)

// ToolProcessMarker is added to every tool environment after the
// allow-list: the control socket refuses tickets to processes that carry
// it, and the next daemon recognises orphaned tool groups by it. It equals
// control.ToolProcessEnv (tools must not import control).
const ToolProcessMarker = "HERMES_TOOL_PROCESS=1"

// allowedNames are the variables every tool process gets (issue 9 item 4):
// what programs need to find themselves, their user and their locale.
// Everything else stays in the daemon unless terminal.env_passthrough
// names it; a deny-list cannot know the name of every secret.
var allowedNames = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "TZ", "TMPDIR"}

// allowedPrefixes are families of harmless variables (the locale).
var allowedPrefixes = []string{"LC_"}

// ToolEnviron returns the environment of a tool process: the entries of
// environ ("NAME=value") whose name is on the allow-list or matched by
// passthrough (terminal.env_passthrough: exact names, or prefixes ending
// in '*'), in environ's order. HERMES_* never passes; malformed entries
// are dropped. The caller
// adds ToolProcessMarker.
//
// TODO(sandbox): delegate to sandbox.Environ once the sandbox package has
// it, so every launcher user (hooks, MCP servers) shares one list.
func ToolEnviron(environ, passthrough []string) []string {
	out := make([]string, 0, len(allowedNames)+len(passthrough))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if ok && name != "" && allowedName(name, passthrough) {
			out = append(out, kv)
		}
	}
	return out
}

// gatewayPrefix names the gateway's own variables (the internal credential,
// the home): never passed, not even through terminal.env_passthrough.
const gatewayPrefix = "HERMES_"

func allowedName(name string, passthrough []string) bool {
	if strings.HasPrefix(strings.ToUpper(name), gatewayPrefix) {
		return false
	}
	if slices.Contains(allowedNames, name) || hasAnyPrefix(name, allowedPrefixes) {
		return true
	}
	for _, p := range passthrough {
		if prefix, ok := strings.CutSuffix(p, "*"); ok && prefix != "" && strings.HasPrefix(name, prefix) {
			return true
		}
		if p == name {
			return true
		}
	}
	return false
}

func hasAnyPrefix(s string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}
