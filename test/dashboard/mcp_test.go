package dashboard_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestDashboardShowsFailedMCPServer: issue 13 item 4 in headless Chromium
// (mcp.mjs): a configured MCP server whose command does not exist, started
// by a session the browser creates with toolsets mcp:broken, shows in the
// header as a failed warning badge with its reason, through the periodic
// mcp.status and, after a reload, through runtime.describe.
func TestDashboardShowsFailedMCPServer(t *testing.T) {
	node := requireBrowser(t)
	f := gt.NewFixture(t, gt.Config{Streaming: true,
		Extra: "mcp_servers:\n  broken: {command: /nonexistent/mcp, approval: never, startup_timeout: \"2s\"}\n"})
	f.Turns.Set("use broken", modeltest.Text("MCP_TURN_DONE"))
	d := f.Start()
	ctx := gt.Context(t, 2*time.Minute)
	v := d.View(ctx)

	link := dashboardLink(ctx, t, f.Bin, f.Home)
	shots := artifactDir(t)
	cmd := exec.CommandContext(ctx, node, "mcp.mjs")
	cmd.Env = append(os.Environ(), "HERMES_LINK="+link, "HERMES_NEW_CWD="+t.TempDir(),
		"HERMES_SCREENSHOT_DIR="+shots, "CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "MCP OK") {
		t.Fatalf("browser test failed: %v\n%s", err, out)
	}
	t.Logf("screenshots in %s\n%s", shots, out)

	st, err := v.MCPStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Servers) != 1 || st.Servers[0].Name != "broken" || st.Servers[0].State != protocol.MCPStateFailed {
		t.Errorf("mcp.status %+v, want broken failed", st.Servers)
	}
}
