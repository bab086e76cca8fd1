package config

import (
	"strings"
	"testing"
	"time"
)

func TestMCPServersLoad(t *testing.T) {
	t.Parallel()
	home := writeConfig(t, `mcp_servers:
  fs: {command: npx, args: [-y, server-fs], env: {LOG_LEVEL: debug}, env_vars: [GITHUB_TOKEN], cwd: ~/work, tool_timeout: 5s}
  web: {url: "https://mcp.example/v1", headers: {X-Team: core}, bearer_token_env: WEB_TOKEN, approval: never}
mcp: {idle_timeout: 1m}
`)
	c, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if fs := c.MCPServers["fs"]; fs.Command != "npx" || fs.EnvVars[0] != "GITHUB_TOKEN" || time.Duration(fs.ToolTimeout) != 5*time.Second {
		t.Errorf("fs %+v", fs)
	}
	if web := c.MCPServers["web"]; web.Approval != MCPApprovalNever || web.BearerTokenEnv != "WEB_TOKEN" {
		t.Errorf("web %+v", web)
	}
	if time.Duration(c.MCP.IdleTimeout) != time.Minute {
		t.Errorf("idle %v", c.MCP.IdleTimeout)
	}
}

// TestMCPServersRefused: secrets are never literals; each bad value names
// its key.
func TestMCPServersRefused(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`mcp_servers: {a: {command: x, env: {TOKEN: sk-abcdefabcdefabcdefabcdef}}}`:                "mcp_servers.a.env.TOKEN: looks like a secret",
		`mcp_servers: {a: {command: x, env: {GITHUB_TOKEN: plainvalue, MAX_TOKENS: "100"}}}`:       "mcp_servers.a.env.GITHUB_TOKEN: looks like a secret",
		`mcp_servers: {a: {url: "https://x.example", headers: {Authorization: "Bearer abc"}}}`:     "mcp_servers.a.headers.Authorization: credentials are never literals",
		`mcp_servers: {a: {url: "https://x.example", bearer_token_env: ghp_abcdefabcdefabcdefab}}`: "mcp_servers.a.bearer_token_env: want the NAME",
		`mcp_servers: {a: {command: x, url: "https://x.example"}}`:                                 "want exactly one of command",
		`mcp_servers: {a: {}}`:                                         "want exactly one of command",
		`mcp_servers: {a__b: {command: x}}`:                            "mcp_servers.a__b: want a name",
		`mcp_servers: {a: {command: x, approval: always}}`:             "mcp_servers.a.approval: want ask or never",
		`mcp_servers: {a: {command: x, cwd: rel/dir}}`:                 "mcp_servers.a.cwd: want an absolute path",
		`mcp_servers: {a: {url: "http://10.0.0.1/mcp"}}`:               "mcp_servers.a.url: want https",
		`mcp: {idle_timeout: -1s}`:                                     "mcp.idle_timeout",
		`mcp_servers: {a: {url: "https://x.example", network: "off"}}`: "network are for stdio servers",
	} {
		_, err := Load(writeConfig(t, body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", body, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "sk-abcdef") {
			t.Errorf("the error echoes the secret: %v", err)
		}
	}
}
