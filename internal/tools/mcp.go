package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// KindMCP is the approval kind of an MCP tool call: the command shown is
// the tool's name and its arguments.
const KindMCP = "mcp"

// MCPToolPrefix starts the name of every MCP tool: mcp__<server>__<tool>.
const MCPToolPrefix = "mcp__"

// maxFunctionName is the longest function name OpenAI-compatible endpoints
// accept ([A-Za-z0-9_-]{1,64}).
const maxFunctionName = 64

// maxShownArgs caps the arguments an approval prompt shows.
const maxShownArgs = 2 << 10

// MCPTool is one tool of an MCP server as a session's turn offers it.
type MCPTool struct {
	Server      string          // the server's name (config.yaml or the editor's)
	Key         string          // the server's identity in the manager (its configuration hash)
	Tool        string          // the tool's own name on the server
	Description string          //
	InputSchema json.RawMessage // a JSON Schema object (the manager refuses others)
	Ask         bool            // approval: ask (every call asks; "always" remembers server+tool)
}

// Name is the function name the model sees.
func (t MCPTool) Name() string { return MCPToolName(t.Server, t.Tool) }

// MCPCaller runs MCP tool calls: the daemon's MCP manager. A server that
// dies during the call, a call over its tool_timeout (cancelled with
// notifications/cancelled) and a server that cannot start are error
// Results; the error return is only ctx's (an interrupted turn).
type MCPCaller interface {
	CallMCP(ctx context.Context, t MCPTool, args json.RawMessage) (Result, error)
}

// IsMCPToolset reports whether a toolset is "mcp" or "mcp:<server>": its
// tools are an MCP server's, listed by the manager when a turn starts.
func IsMCPToolset(name string) bool { return name == "mcp" || strings.HasPrefix(name, "mcp:") }

// MCPToolName is mcp__<server>__<tool> with every character a function
// name may not hold replaced by '_', cut to 64 bytes.
func MCPToolName(server, tool string) string {
	var b strings.Builder
	b.WriteString(MCPToolPrefix + server + "__")
	for _, r := range tool {
		if r < utf8.RuneSelf && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > maxFunctionName {
		s = s[:maxFunctionName]
	}
	return s
}

// NewMCPTools adapts the listed tools of a session's MCP servers. Two
// tools whose names collide after MCPToolName keep the first.
func NewMCPTools(c MCPCaller, list []MCPTool) []Tool {
	seen := map[string]bool{}
	out := make([]Tool, 0, len(list))
	for _, t := range list {
		if seen[t.Name()] {
			continue
		}
		seen[t.Name()] = true
		out = append(out, mcpTool{def: t, caller: c})
	}
	return out
}

// mcpTool is one MCP tool as a tools.Tool.
type mcpTool struct {
	def    MCPTool
	caller MCPCaller
}

func (t mcpTool) Spec() Spec {
	desc := t.def.Description
	if desc == "" {
		desc = fmt.Sprintf("Tool %q of the MCP server %q.", t.def.Tool, t.def.Server)
	}
	return Spec{Name: t.def.Name(), Description: desc, Parameters: t.def.InputSchema}
}

// Run asks (unless the server's approval is never), then calls the server
// and caps the result like terminal output.
func (t mcpTool) Run(ctx context.Context, env *Env, args json.RawMessage) (Result, error) {
	if t.def.Ask {
		ok, err := t.approve(ctx, env, args)
		if err != nil || !ok {
			return failf("denied by the user: %s was not called.", t.def.Name()), err
		}
	}
	res, err := t.caller.CallMCP(ctx, t.def, args)
	if err != nil {
		return Result{}, err
	}
	if limit := outputCap(env); len(res.Output) > limit {
		total := len(res.Output)
		res.Output = strings.ToValidUTF8(res.Output[:limit], "") +
			fmt.Sprintf("\n[output truncated: the first %d of %d bytes are shown]", limit, total)
	}
	return res, nil
}

func (t mcpTool) approve(ctx context.Context, env *Env, args json.RawMessage) (bool, error) {
	if env == nil || env.Approver == nil {
		return false, nil
	}
	return env.Approver.Approve(ctx, ApprovalRequest{
		Kind:        KindMCP,
		Command:     t.def.Name() + " " + shownArgs(args),
		Description: fmt.Sprintf("call tool %q of the MCP server %q", t.def.Tool, t.def.Server),
		Pattern:     t.def.Name(), // "session" and "always" remember this server and tool
	})
}

// shownArgs is the compact JSON of args, capped for the prompt.
func shownArgs(args json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, args) != nil {
		return string(args)
	}
	s := b.String()
	if len(s) > maxShownArgs {
		s = strings.ToValidUTF8(s[:maxShownArgs], "") + "…"
	}
	return s
}
