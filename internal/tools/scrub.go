package tools

import (
	"slices"
	"strings"

	"github.com/hermes-gateway/hermes/internal/sandbox"
)

// ToolProcessMarker is added to every tool environment after the
// allow-list: the control socket refuses tickets to processes that carry
// it, and the next daemon recognises orphaned tool groups by it. It equals
// control.ToolProcessEnv (tools must not import control).
const ToolProcessMarker = "HERMES_TOOL_PROCESS=1"

// gatewayPrefix names the gateway's own variables (the internal credential,
// the home): never passed, not even through terminal.env_passthrough.
const gatewayPrefix = "HERMES_"

// ToolEnviron returns the environment of a tool process: sandbox.Environ's
// allow-list (PATH, HOME, USER, LOGNAME, SHELL, LANG, LC_*, TERM, TZ,
// TMPDIR) plus what passthrough (terminal.env_passthrough: exact names, or
// prefixes ending in '*') names, in environ's order, never a HERMES_*
// variable. The caller adds ToolProcessMarker. A deny-list cannot know the
// name of every secret; an allow-list does not need to.
func ToolEnviron(environ, passthrough []string) []string {
	return slices.DeleteFunc(sandbox.Environ(environ, passthrough), func(kv string) bool {
		return strings.HasPrefix(strings.ToUpper(kv), gatewayPrefix)
	})
}
