package session

import (
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// MCP toolset names (issue 13): ToolsetMCP is every MCP server the session
// may use; ToolsetMCPPrefix+NAME is one of them.
const (
	ToolsetMCP       = "mcp"
	ToolsetMCPPrefix = "mcp:"
)

// MCP server sources.
const (
	MCPSourceConfig = "config" // mcp_servers in config.yaml
	MCPSourceEditor = "editor" // an ACP editor's mcpServers at session/new
)

// MCP transports.
const (
	MCPTransportStdio = "stdio"
	MCPTransportHTTP  = "http" // streamable HTTP
	MCPTransportSSE   = "sse"  // the older HTTP+SSE transport (editors only)
)

// MCPServer is one MCP server frozen into a session's policy: where it came
// from and its whole configuration. Config servers never hold a secret
// (config.yaml refuses literal keys; EnvVars and BearerTokenEnv are names
// resolved when the server starts). Editor servers hold what the editor
// sent, as policy.editor always has.
type MCPServer struct {
	Name      string            `json:"name"`
	Source    string            `json:"source"`    // MCPSourceConfig or MCPSourceEditor
	Transport string            `json:"transport"` // MCPTransport*
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	EnvVars   []string          `json:"env_vars,omitempty"`
	Cwd       string            `json:"cwd,omitempty"` // absolute; "" = a private directory

	URL            string            `json:"url,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	BearerTokenEnv string            `json:"bearer_token_env,omitempty"`

	EnabledTools     []string `json:"enabled_tools,omitempty"`
	DisabledTools    []string `json:"disabled_tools,omitempty"`
	StartupTimeoutMS int64    `json:"startup_timeout_ms,omitempty"` // 0 = the default
	ToolTimeoutMS    int64    `json:"tool_timeout_ms,omitempty"`    // 0 = the default
	Approval         string   `json:"approval"`                     // "ask" or "never"
	Network          string   `json:"network,omitempty"`            // "" = sandbox network; on, off
}

// Toolset is the MCP server's toolset name.
func (s MCPServer) Toolset() string { return ToolsetMCPPrefix + s.Name }

// isMCPToolset reports whether name is "mcp" or "mcp:<server>".
func isMCPToolset(name string) bool {
	return name == ToolsetMCP || strings.HasPrefix(name, ToolsetMCPPrefix)
}

// splitMCP separates the MCP toolset names from the others.
func splitMCP(names []string) (mcp, rest []string) {
	for _, n := range names {
		if isMCPToolset(n) {
			mcp = append(mcp, n)
		} else {
			rest = append(rest, n)
		}
	}
	return mcp, rest
}

// mcpStep freezes the MCP servers of the session: without explicit
// toolsets every available server (config.yaml's, and an acp editor's),
// minus agent.disabled_toolsets ("mcp" or "mcp:NAME"); explicit toolsets
// name "mcp" (all of them) or "mcp:NAME" (one, which must be available).
// An editor server replaces a config server of the same name for this
// session. Safe-mode sessions run their tools in the worker and get none.
func (b *builder) mcpStep() error {
	avail, err := b.availableMCP()
	if err != nil {
		return err
	}
	var want []string
	if b.p.Toolsets == nil {
		want = []string{ToolsetMCP}
	} else {
		want, _ = splitMCP(*b.p.Toolsets)
	}
	chosen, err := chooseMCP(avail, want, b.eff.DisabledToolsets, b.p.Toolsets != nil)
	if err != nil || len(chosen) == 0 {
		return err
	}
	b.pol.MCP = chosen
	for _, s := range chosen {
		b.pol.Toolsets = append(b.pol.Toolsets, s.Toolset())
	}
	sort.Strings(b.pol.Toolsets)
	return nil
}

func (b *builder) availableMCP() (map[string]MCPServer, error) {
	avail := map[string]MCPServer{}
	if b.pol.SafeMode {
		return avail, nil
	}
	for _, s := range b.eff.MCPServers {
		avail[s.Name] = s
	}
	ed, err := editorMCP(b.pol.Editor)
	for _, s := range ed {
		avail[s.Name] = s
	}
	return avail, err
}

func chooseMCP(avail map[string]MCPServer, want, disabled []string, explicit bool) ([]MCPServer, error) {
	off := func(name string) bool {
		return slices.Contains(disabled, ToolsetMCP) || slices.Contains(disabled, ToolsetMCPPrefix+name)
	}
	picked := map[string]bool{}
	for _, w := range want {
		if w == ToolsetMCP {
			for name := range avail {
				picked[name] = picked[name] || !off(name)
			}
			continue
		}
		name := strings.TrimPrefix(w, ToolsetMCPPrefix)
		if _, ok := avail[name]; !ok || off(name) {
			if !explicit {
				continue
			}
			return nil, protocol.Errorf(protocol.ReasonInvalidParams, "toolsets: %q names no MCP server enabled for this profile and source", clip(w))
		}
		picked[name] = true
	}
	var out []MCPServer
	for name, ok := range picked {
		if ok {
			out = append(out, avail[name])
		}
	}
	slices.SortFunc(out, func(a, b MCPServer) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// editorServer is one entry of an ACP editor's mcpServers.
type editorServer struct {
	Type    string          `json:"type"` // "" or "stdio", "http", "sse"
	Name    string          `json:"name"`
	Command string          `json:"command"`
	Args    []string        `json:"args"`
	Env     []editorNameVal `json:"env"`
	URL     string          `json:"url"`
	Headers []editorNameVal `json:"headers"`
}

type editorNameVal struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// editorNameRE is the MCP server name rule of config.yaml: the name becomes
// part of tool names.
var editorNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// editorMCP reads the canonical editor descriptor's mcpServers. A server
// the gateway cannot run (no name, a bad name, no command or url) is
// invalid_params: the editor hears it at session/new, never a silent drop.
func editorMCP(editor json.RawMessage) ([]MCPServer, error) {
	if len(editor) == 0 {
		return nil, nil
	}
	var ed struct {
		MCPServers []editorServer `json:"mcpServers"`
	}
	if json.Unmarshal(editor, &ed) != nil {
		return nil, invalid("editor.mcpServers: want an array of MCP servers")
	}
	var out []MCPServer
	for _, e := range ed.MCPServers {
		s, err := e.server()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (e editorServer) server() (MCPServer, error) {
	if !editorNameRE.MatchString(e.Name) || strings.Contains(e.Name, "__") || strings.HasSuffix(e.Name, "_") {
		return MCPServer{}, invalid("editor.mcpServers: a server name must be 1..32 letters, digits, - or _ (no \"__\")")
	}
	s := MCPServer{Name: e.Name, Source: MCPSourceEditor, Approval: "ask"}
	switch e.Type {
	case "", MCPTransportStdio:
		if e.Command == "" {
			return MCPServer{}, invalid("editor.mcpServers: server %q has no command", e.Name)
		}
		s.Transport, s.Command, s.Args, s.Env = MCPTransportStdio, e.Command, e.Args, nameVals(e.Env)
	case MCPTransportHTTP, MCPTransportSSE:
		if err := checkBaseURL(e.URL, false); err != nil {
			return MCPServer{}, invalid("editor.mcpServers: server %q needs an http(s) url", e.Name)
		}
		s.Transport, s.URL, s.Headers = e.Type, e.URL, nameVals(e.Headers)
	default:
		return MCPServer{}, invalid("editor.mcpServers: server %q has an unknown type", e.Name)
	}
	return s, nil
}

func nameVals(vs []editorNameVal) map[string]string {
	if len(vs) == 0 {
		return nil
	}
	m := make(map[string]string, len(vs))
	for _, v := range vs {
		m[v.Name] = v.Value
	}
	return m
}

// checkPolicyMCP: every mcp:NAME toolset has its frozen server and back.
func checkPolicyMCP(p Policy) error {
	var names []string
	for _, s := range p.MCP {
		if s.Name == "" || (s.Command == "") == (s.URL == "") {
			return storageErr("receipt: policy.mcp holds a malformed server")
		}
		names = append(names, s.Toolset())
	}
	got, _ := splitMCP(p.Toolsets)
	if !slices.Equal(sortedUnique(got), sortedUnique(names)) {
		return storageErr("receipt: policy.toolsets and policy.mcp disagree")
	}
	return nil
}
