// Package dashboard_test drives the dashboard end to end: the built hermes
// gateway with a fake model, the `hermes dashboard` link, and headless
// Chromium (playwright-core, e2e.mjs) approving a pending command.
//
// Needs node, /usr/bin/chromium and `npm ci` in test/dashboard; it skips
// with a message when one is missing.
package dashboard_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestMain(m *testing.M) { os.Exit(gt.Main(m)) }

const chromium = "/usr/bin/chromium"

func requireBrowser(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; the dashboard browser test needs Node 20+")
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	if _, err := os.Stat(filepath.Join("node_modules", "playwright-core")); err != nil {
		t.Skip("playwright-core is missing: run `npm ci` in test/dashboard")
	}
	return node
}

func artifactDir(t *testing.T) string {
	dir := os.Getenv("HERMES_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	dir = filepath.Join(dir, "dashboard")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestDashboardApprovesInBrowser(t *testing.T) {
	node := requireBrowser(t)
	f := gt.NewFixture(t, gt.Config{Streaming: true})
	cwd := t.TempDir()
	owned := filepath.Join(cwd, "owned-removal")
	if err := os.Mkdir(owned, 0o700); err != nil {
		t.Fatal(err)
	}
	f.Turns.Set("Remove the owned directory",
		modeltest.ToolCall("terminal", gt.TerminalArgs("rm -r -- "+owned)),
		modeltest.Text("DASHBOARD_TURN_DONE"))
	d := f.Start()
	ctx := gt.Context(t, 2*time.Minute)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("dash-e2e"), Cwd: &cwd, Title: gt.Ptr("dashboard e2e")})
	rc := gt.Submit(t, v, snap.SessionID, "dash-1", "Remove the owned directory")
	gt.AwaitPrompt(t, v, time.Minute)

	link := dashboardLink(ctx, t, f.Bin, f.Home)
	shots := artifactDir(t)
	runBrowser(ctx, t, node, link, snap.SessionID, shots, "approve", "DASHBOARD_TURN_DONE")
	t.Logf("screenshots in %s", shots)

	done := gt.AwaitComplete(t, v, rc.AdmissionID, time.Minute)
	if done.Outcome != protocol.OutcomeCompleted {
		t.Errorf("turn outcome %q, want completed", done.Outcome)
	}
	if _, err := os.Stat(owned); !os.IsNotExist(err) {
		t.Errorf("the approved rm did not run: %v", err)
	}
}

// TestDashboardRewindsInBrowser: after a checkpointed turn that changed two
// files and created a third, and a user edit of one of them, the browser
// clicks the turn's rewind action, confirms, sees the user's file listed as
// a conflict (nothing changed yet), forces, and the tree is the one from
// before the turn.
func TestDashboardRewindsInBrowser(t *testing.T) {
	node := requireBrowser(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on this machine: checkpoints are unavailable")
	}
	f := gt.NewFixture(t, gt.Config{Streaming: true})
	cwd := gt.Cwd(t)
	for name, content := range map[string]string{"a.txt": "original a\n", "b.txt": "original b\n"} {
		if err := os.WriteFile(filepath.Join(cwd, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeArgs := func(path, content string) string {
		b, _ := json.Marshal(map[string]string{"path": path, "content": content})
		return string(b)
	}
	f.Turns.Set("Edit the files",
		modeltest.ToolCall("write_file", writeArgs("a.txt", "agent a\n")),
		modeltest.ToolCall("write_file", writeArgs("b.txt", "agent b\n")),
		modeltest.ToolCall("write_file", writeArgs("c.txt", "created by the agent\n")),
		modeltest.Text("EDITS_DONE"))
	d := f.Start()
	ctx := gt.Context(t, 2*time.Minute)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("dash-rewind"), Cwd: &cwd,
		Title: gt.Ptr("dashboard rewind"), Yolo: gt.Ptr(true), Checkpoints: gt.Ptr(true)})
	rc := gt.Submit(t, v, snap.SessionID, "dash-r1", "Edit the files")
	if done := gt.AwaitComplete(t, v, rc.AdmissionID, time.Minute); done.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("turn outcome %q (%s)", done.Outcome, done.Error)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(cwd, name))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	if read("a.txt") != "agent a\n" || read("c.txt") != "created by the agent\n" {
		t.Fatalf("the turn did not write: a=%q c=%q", read("a.txt"), read("c.txt"))
	}
	// The user's own edit after the agent's: a rewind must list it first.
	if err := os.WriteFile(filepath.Join(cwd, "b.txt"), []byte("the user's b\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	link := dashboardLink(ctx, t, f.Bin, f.Home)
	shots := artifactDir(t)
	runBrowser(ctx, t, node, link, snap.SessionID, shots, "rewind", "b.txt")
	t.Logf("screenshots in %s", shots)

	for name, want := range map[string]string{"a.txt": "original a\n", "b.txt": "original b\n", "c.txt": "<missing>"} {
		if got := read(name); got != want {
			t.Errorf("after the forced rewind %s = %q, want %q", name, got, want)
		}
	}
	if n := v.Count(func(ev protocol.Event) bool { return ev.Type == protocol.EventSessionRewound }); n != 1 {
		t.Errorf("%d session.rewound events, want 1 (the forced rewind; the one with conflicts changed nothing)", n)
	}
}

// dashboardLink runs `hermes dashboard` without a browser to open.
func dashboardLink(ctx context.Context, t *testing.T, bin, home string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, "--home", home, "dashboard", "--no-open", "--no-autostart")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hermes dashboard: %v", err)
	}
	link := strings.TrimSpace(string(out))
	if !strings.HasPrefix(link, "http://127.0.0.1:") || !strings.Contains(link, "/auth/link?ticket=") {
		t.Fatalf("hermes dashboard printed %d bytes, not a link", len(out))
	}
	return link
}

func runBrowser(ctx context.Context, t *testing.T, node, link, sid, shots, scenario, expect string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, node, "e2e.mjs")
	cmd.Env = append(os.Environ(), "HERMES_LINK="+link, "HERMES_SESSION_ID="+sid, "HERMES_SCENARIO="+scenario,
		"HERMES_EXPECT="+expect, "HERMES_SCREENSHOT_DIR="+shots, "CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "E2E OK") {
		t.Fatalf("browser test failed: %v\n%s", err, out)
	}
}
