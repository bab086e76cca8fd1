package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// The agent cannot mint itself an operator connection: a tool process (and
// anything it starts, with or without the marker variable) is refused a
// ticket by the control socket, so it can never answer its own approvals.
func TestToolCannotMintTickets(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := gt.Cwd(t)
	// The test binary's directory is under the host /tmp, which tools do not
	// see (their /tmp is private): the tool runs a copy in its cwd.
	bin := filepath.Join(dir, "hermes")
	copyFile(t, f.Bin, bin)
	cmd := bin + " --home " + f.Home + " sessions list --json; echo exit=$?; " +
		"env -u HERMES_TOOL_PROCESS " + bin + " --home " + f.Home + " dashboard --no-open --no-autostart; echo exit=$?"
	f.Turns.Set("mint", modeltest.ToolCall("terminal", gt.TerminalArgs(cmd)), modeltest.Text("MINT_DONE"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("mint"), Cwd: &dir,
		Toolsets: &[]string{"terminal"}, Yolo: gt.Ptr(true)})
	rc := gt.Submit(t, v, snap.SessionID, "m1", "mint")
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("turn: %+v", mc)
	}
	var out string
	for _, r := range f.Model.Requests() {
		for _, m := range r.ToolResults() {
			out += m.Content
		}
	}
	t.Logf("tool output:\n%s", out)
	if strings.Count(out, "exit=3") != 2 || strings.Contains(out, "/auth/link?ticket=") || strings.Contains(out, snap.SessionID) {
		t.Fatalf("a tool process obtained operator access:\n%s", out)
	}
	if _, err := d.Ticket(ctx); err != nil {
		t.Fatalf("an ordinary client is refused too: %v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o700); err != nil {
		t.Fatal(err)
	}
}
