package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestEverythingListAndCall: the npm server's tools are offered as
// mcp__everything__*, its echo and get-sum run (approval: never), and
// runtime.describe and mcp.status report it ready with its tool count.
func TestEverythingListAndCall(t *testing.T) {
	t.Parallel()
	js := everythingJS(t)
	// Its cwd (a writable root, so visible in the sandbox) is this package's
	// directory: a clean clone may live under the host's /tmp, which the
	// sandbox replaces with a private one.
	pkg := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(js)))))
	f := fixture(t, fmt.Sprintf("  everything: {command: node, args: [%q, stdio], cwd: %q, approval: never}\n", js, pkg), "")
	f.Turns.Set("use everything",
		call("mcp__everything__echo", `{"message":"hello from hermes"}`),
		call("mcp__everything__get-sum", `{"a":2,"b":40}`),
		modeltest.Text("EVERYTHING_DONE"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	st, err := v.MCPStatus(ctx)
	if err != nil || len(st.Servers) != 1 || st.Servers[0].State != protocol.MCPStateStopped {
		t.Fatalf("mcp.status before use: %+v %v, want everything stopped", st, err)
	}
	dir := gt.Cwd(t)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("ev"), Cwd: &dir})
	rc := gt.Submit(t, v, snap.SessionID, "s1", "use everything")
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted || mc.Text != "EVERYTHING_DONE" {
		t.Fatalf("turn: %+v", mc)
	}
	reqs := gt.RequestsFor(f.Model, "use everything")
	if len(reqs) != 3 || !reqs[0].HasTool("mcp__everything__echo") || !reqs[0].HasTool("mcp__everything__get-sum") {
		t.Fatalf("the model was not offered the server's tools (%d requests)", len(reqs))
	}
	res := reqs[1].ToolResults()
	if len(res) != 1 || !strings.Contains(res[0].Content, "hello from hermes") {
		t.Errorf("echo result %+v", res)
	}
	if res := reqs[2].ToolResults(); len(res) != 2 || !strings.Contains(res[1].Content, "42") {
		t.Errorf("get-sum result %+v", res)
	}
	desc, err := v.Describe(ctx)
	if err != nil || len(desc.MCPServers) != 1 {
		t.Fatalf("runtime.describe mcp_servers: %+v %v", desc.MCPServers, err)
	}
	if s := desc.MCPServers[0]; s.Name != "everything" || s.State != protocol.MCPStateReady || s.Tools < 5 || s.Transport != "stdio" {
		t.Errorf("describe: %+v, want everything ready with its tools", s)
	}
}

// TestApprovalAndAlways: a call of an ask server waits for consent with
// the tool name and arguments shown; deny gives the model a refusal;
// "always" remembers the server and tool (command_allowlist), so the next
// call of that tool runs without asking.
func TestApprovalAndAlways(t *testing.T) {
	t.Parallel()
	dir := serverDir(t)
	f := fixture(t, tsYAML("ts", dir, ""), "")
	f.Turns.Set("deny it", call("mcp__ts__echo", `{"text":"secret plan"}`), modeltest.Text("DENIED"))
	f.Turns.Set("allow it", call("mcp__ts__echo", `{"text":"first"}`), modeltest.Text("ALLOWED"))
	f.Turns.Set("again", call("mcp__ts__echo", `{"text":"second"}`), modeltest.Text("AGAIN"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("ap"), Cwd: gt.Ptr(gt.Cwd(t)), Toolsets: &[]string{"mcp:ts"}})
	rc := gt.Submit(t, v, snap.SessionID, "s1", "deny it")
	p := approve(t, v, 1, snap.SessionID, protocol.ChoiceDeny)
	if p.Kind != "mcp" || !strings.Contains(p.Command, "mcp__ts__echo") || !strings.Contains(p.Command, "secret plan") ||
		!slices.Equal(p.Choices, protocol.ApprovalChoices) {
		t.Errorf("prompt %+v: want kind mcp with the tool and its arguments", p)
	}
	gt.AwaitComplete(t, v, rc.AdmissionID, wait)
	if tc := toolComplete(t, v, "mcp__ts__echo"); tc.Error == "" || !strings.Contains(tc.Result, "denied") {
		t.Errorf("denied call: %+v", tc)
	}
	rc = gt.Submit(t, v, snap.SessionID, "s2", "allow it")
	approve(t, v, 2, snap.SessionID, protocol.ChoiceAlways)
	gt.AwaitComplete(t, v, rc.AdmissionID, wait)
	rc = gt.Submit(t, v, snap.SessionID, "s3", "again")
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Text != "AGAIN" {
		t.Fatalf("third turn %+v", mc)
	}
	if n := v.Count(func(ev protocol.Event) bool { return ev.Type == protocol.EventApprovalRequest }); n != 2 {
		t.Errorf("%d approval requests, want 2 (always remembered the tool)", n)
	}
	res := gt.RequestsFor(f.Model, "again")[1].ToolResults()
	if len(res) == 0 || res[len(res)-1].Content != "echo: second" {
		t.Errorf("remembered call result %+v", res)
	}
	if cfg, err := os.ReadFile(filepath.Join(f.Home, "config.yaml")); err != nil || !strings.Contains(string(cfg), "mcp__ts__echo") {
		t.Errorf("config.yaml command_allowlist lacks the always-approved tool: %v\n%s", err, cfg)
	}
}

// TestNotGivenTool: a session without the server's toolset that calls its
// tool gets a clear error result; the turn goes on.
func TestNotGivenTool(t *testing.T) {
	t.Parallel()
	dir := serverDir(t)
	f := fixture(t, tsYAML("ts", dir, ", approval: never"), "")
	f.Turns.Set("sneak", call("mcp__ts__echo", `{"text":"x"}`), modeltest.Text("WENT_ON"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("ng"), Cwd: gt.Ptr(gt.Cwd(t)), Toolsets: &[]string{"terminal"}})
	rc := gt.Submit(t, v, snap.SessionID, "s1", "sneak")
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted || mc.Text != "WENT_ON" {
		t.Fatalf("turn %+v", mc)
	}
	if tc := toolComplete(t, v, "mcp__ts__echo"); tc.Error == "" || !strings.Contains(tc.Result, `unknown tool "mcp__ts__echo"`) {
		t.Errorf("tool.complete %+v, want an unknown-tool error", tc)
	}
	if starts(t, dir) != 0 {
		t.Errorf("the server was started for a session that was not given it")
	}
	if _, err := v.CreateSession(ctx, protocol.SessionCreateParams{RequestID: gt.Ptr("ng2"), Cwd: gt.Ptr(gt.Cwd(t)),
		Toolsets: &[]string{"mcp:nope"}}); gt.Reason(err) != protocol.ReasonInvalidParams {
		t.Errorf("toolsets [mcp:nope]: %v, want invalid_params", err)
	}
}
