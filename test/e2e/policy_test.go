package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestThreeConcurrentSurfaces: docs/protocol.md#toolsets. cli, tui and gui
// sessions run at once (their first requests held together), each with its
// own frozen cwd, model and tool schemas; config.yaml is never written.
func TestThreeConcurrentSurfaces(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hold := modeltest.NewBarrier()
	t.Cleanup(hold.Release)
	f.Turns.Set("Write the proof",
		modeltest.Reply{ToolCalls: []modeltest.Call{{Name: "terminal", Args: gt.TerminalArgs("pwd; printf owned > policy-proof.txt")}}, Hold: hold},
		modeltest.Text("POLICY_FINISHED"))
	cfgBefore := readFile(t, filepath.Join(f.Home, "config.yaml"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	base := gt.Cwd(t)
	sources := []string{"cli", "tui", "gui"}
	type run struct {
		v   *gt.Recorder
		sid string
		adm string
		dir string
	}
	runs := map[string]run{}
	for _, src := range sources {
		dir := filepath.Join(base, src)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		p := protocol.SessionCreateParams{RequestID: gt.Ptr("policy-" + src), Source: gt.Ptr(src), Cwd: &dir, Model: gt.Ptr("policy-" + src)}
		if src == "cli" {
			p.Toolsets = &[]string{"terminal"}
		}
		v := d.View(ctx)
		snap := gt.Create(t, v, p)
		if again := gt.Create(t, v, p); again.SessionID != snap.SessionID {
			t.Errorf("%s: repeated create gave %s, want %s", src, again.SessionID, snap.SessionID)
		}
		changed := p
		changed.Model = gt.Ptr("changed")
		if _, err := v.CreateSession(ctx, changed); gt.Reason(err) != protocol.ReasonInvalidParams {
			t.Errorf("%s: create with a changed model: %v, want invalid_params", src, err)
		}
		rc := gt.Submit(t, v, snap.SessionID, "proof", "Write the proof")
		runs[src] = run{v: v, sid: snap.SessionID, adm: rc.AdmissionID, dir: dir}
	}
	if err := hold.AwaitWaiting(ctx, 3); err != nil {
		t.Fatalf("the three first requests were not in flight together: %v", err)
	}
	hold.Release()
	tools := map[string][]string{}
	for _, src := range sources {
		r := runs[src]
		if mc := gt.AwaitComplete(t, r.v, r.adm, wait); mc.Outcome != protocol.OutcomeCompleted {
			t.Errorf("%s: outcome %q", src, mc.Outcome)
		}
		if got := readFile(t, filepath.Join(r.dir, "policy-proof.txt")); got != "owned" {
			t.Errorf("%s: policy-proof.txt = %q, want owned", src, got)
		}
		tools[src] = checkModelRequests(t, f.Model, "policy-"+src, r.dir)
		if again := gt.Resume(t, d.View(ctx), r.sid); again.SessionID != r.sid || again.Info.Source != src {
			t.Errorf("%s: reconnect resume %s %+v", src, again.SessionID, again.Info)
		}
	}
	checkToolSurfaces(t, tools)
	if got := readFile(t, filepath.Join(f.Home, "config.yaml")); got != cfgBefore {
		t.Errorf("config.yaml changed:\n%s", got)
	}
}

// checkModelRequests asserts the requests of one frozen model and returns
// the tools its first request offered.
func checkModelRequests(t *testing.T, m *modeltest.Server, model, dir string) []string {
	t.Helper()
	var reqs []*modeltest.Request
	for _, r := range m.Requests() {
		if r.Model == model {
			reqs = append(reqs, r)
		}
	}
	if len(reqs) < 2 {
		t.Fatalf("%s: %d requests, want ≥ 2", model, len(reqs))
	}
	if !strings.Contains(reqs[0].System(), dir) {
		t.Errorf("%s: system prompt does not name the cwd %s", model, dir)
	}
	if !reqs[0].HasTool("terminal") {
		t.Errorf("%s: terminal not offered: %v", model, reqs[0].Tools)
	}
	tr := reqs[len(reqs)-1].ToolResults()
	if !slices.ContainsFunc(tr, func(m modeltest.Msg) bool { return strings.Contains(m.Content, dir) }) {
		t.Errorf("%s: no tool result contains the cwd %s: %+v", model, dir, tr)
	}
	return reqs[0].Tools
}

// checkToolSurfaces: desktop_ui only for gui; tui and gui add tools.
func checkToolSurfaces(t *testing.T, tools map[string][]string) {
	t.Helper()
	for src, ts := range tools {
		hasUI := slices.Contains(ts, "ui_open_file")
		if hasUI != (src == "gui") {
			t.Errorf("%s offers ui_open_file = %v: %v", src, hasUI, ts)
		}
	}
	for _, name := range tools["tui"] {
		if !slices.Contains(tools["gui"], name) {
			t.Errorf("tool %s of tui is not offered to gui", name)
		}
	}
	if !slices.Contains(tools["tui"], "project_overview") {
		t.Errorf("tui lacks project_overview: %v", tools["tui"])
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
