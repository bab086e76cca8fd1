package session

import (
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestMCPToolsets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.d.MCPServers = []MCPServer{
		{Name: "fs", Source: MCPSourceConfig, Transport: MCPTransportStdio, Command: "fs-server", Approval: "ask"},
		{Name: "web", Source: MCPSourceConfig, Transport: MCPTransportHTTP, URL: "https://mcp.example/x", Approval: "never"},
	}
	editor := `,"source":"acp","editor":{"mcpServers":[{"name":"fs","command":"editor-fs","args":["-v"],"env":[{"name":"A","value":"1"}]}]}`
	tests := []struct {
		in, want, servers string
		reason            protocol.Reason
	}{
		{in: `{"cwd":"{plain}"}`, want: "clarify,file,mcp:fs,mcp:web,terminal,todo", servers: "fs/config,web/config"},
		{in: `{"cwd":"{plain}","toolsets":["terminal","mcp:web"]}`, want: "mcp:web,terminal", servers: "web/config"},
		{in: `{"cwd":"{plain}","toolsets":["mcp"]}`, want: "mcp:fs,mcp:web", servers: "fs/config,web/config"},
		{in: `{"cwd":"{plain}","toolsets":[]}`, want: ""},
		{in: `{"cwd":"{plain}","toolsets":["mcp:nope"]}`, reason: protocol.ReasonInvalidParams},
		{in: `{"cwd":"{plain}"` + editor + `}`, want: "clarify,file,mcp:fs,mcp:web,terminal", servers: "fs/editor,web/config"},
		{in: `{"cwd":"{plain}","safe_mode":true,"model":"m","base_url":"http://127.0.0.1:1/v1"}`, want: "clarify,file,terminal,todo"},
		{in: `{"cwd":"{plain}","source":"acp","editor":{"mcpServers":[{"name":"bad__name","command":"x"}]}}`, reason: protocol.ReasonInvalidParams},
	}
	for _, tt := range tests {
		l, err := Build(params(t, e.expand(tt.in)), "uid:1000", e.d, now)
		if tt.reason != "" {
			wantErr(t, err, tt.reason, "")
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		pol := l.Receipt.Policy
		if got := strings.Join(pol.Toolsets, ","); got != tt.want {
			t.Errorf("%s: toolsets %s, want %s", tt.in, got, tt.want)
		}
		var servers []string
		for _, s := range pol.MCP {
			servers = append(servers, s.Name+"/"+s.Source)
		}
		if got := strings.Join(servers, ","); got != tt.servers {
			t.Errorf("%s: servers %s, want %s", tt.in, got, tt.servers)
		}
		if err := checkPolicyToolsets(pol); err != nil {
			t.Errorf("%s: the built policy does not restore: %v", tt.in, err)
		}
	}
}

func TestMCPDisabledAndRestore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.d.MCPServers = []MCPServer{{Name: "fs", Source: MCPSourceConfig, Transport: MCPTransportStdio, Command: "x", Approval: "ask"}}
	e.d.DisabledToolsets = []string{"mcp:fs"}
	l, err := Build(params(t, e.expand(`{"cwd":"{plain}"}`)), "uid:1000", e.d, now)
	if err != nil || len(l.Receipt.Policy.MCP) != 0 {
		t.Fatalf("disabled server frozen: %+v %v", l.Receipt.Policy.MCP, err)
	}
	_, err = Build(params(t, e.expand(`{"cwd":"{plain}","toolsets":["mcp:fs"]}`)), "uid:1000", e.d, now)
	wantErr(t, err, protocol.ReasonInvalidParams, "")
	bad := Policy{Toolsets: []string{"mcp:fs"}}
	if checkPolicyToolsets(bad) == nil {
		t.Error("mcp:fs without its frozen server restored")
	}
}
