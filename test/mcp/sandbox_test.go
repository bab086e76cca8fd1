package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestStdioServerRunsInsideTheSandbox: a stdio server is a tool process.
// It cannot read the profile's .env (the profile home is hidden), its
// environment is the tool allow-list plus its env_vars (from the daemon's
// environment and from .env) and the tool marker: neither a daemon
// variable it did not name, nor a .env value it did not name, nor any
// other HERMES_* variable reaches it.
func TestStdioServerRunsInsideTheSandbox(t *testing.T) {
	t.Parallel()
	dir := serverDir(t)
	script := fmt.Sprintf(`{ cat %q; echo "exit=$?"; env | sort; } > peek.txt 2>&1; exec %q`,
		"{home}/.env", testServer)
	f := fixture(t, fmt.Sprintf("  peek: {command: bash, args: [-c, %q], cwd: %q, env_vars: [MCP_WANTED, DOTENV_WANTED], approval: never}\n",
		script, dir), "")
	f.Config.Extra = strings.ReplaceAll(f.Config.Extra, "{home}", f.Home) // known only now
	gt.WriteFile(t, filepath.Join(f.Home, "config.yaml"), f.Config.YAML())
	gt.WriteFile(t, filepath.Join(f.Home, ".env"),
		"DOTENV_WANTED=from-dotenv\nDOTENV_SECRET=sk-dotenv-must-not-see-0123456789\n")
	f.Turns.Set("peek", modeltest.Text("PEEKED"))
	d := f.Start("MCP_WANTED=from-daemon", "DAEMON_SECRET=sk-daemon-must-not-see-0123456789",
		"HERMES_PEEK_PROBE=must-not-see")
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("peek"), Cwd: gt.Ptr(dir)})
	rc := gt.Submit(t, v, snap.SessionID, "s1", "peek") // the turn starts the server
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Text != "PEEKED" {
		t.Fatalf("turn %+v", mc)
	}
	b, err := os.ReadFile(filepath.Join(dir, "peek.txt"))
	if err != nil {
		t.Fatalf("the server did not start: %v", err)
	}
	got := string(b)
	for _, bad := range []string{"sk-dotenv-must-not-see", "sk-daemon-must-not-see", "HERMES_PEEK_PROBE", "DOTENV_SECRET"} {
		if strings.Contains(got, bad) {
			t.Errorf("the server saw %s:\n%s", bad, got)
		}
	}
	for _, want := range []string{"exit=1", "\nMCP_WANTED=from-daemon\n", "\nDOTENV_WANTED=from-dotenv\n", "\nHERMES_TOOL_PROCESS=1\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the server's view lacks %q:\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "HERMES_") && line != "HERMES_TOOL_PROCESS=1" {
			t.Errorf("the server got %s", line)
		}
	}
}
