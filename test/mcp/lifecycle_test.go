package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestCrashMidCall: a server that dies during a call ends that call with
// an error result and the turn goes on; the next use restarts it.
func TestCrashMidCall(t *testing.T) {
	t.Parallel()
	dir := serverDir(t)
	f := fixture(t, tsYAML("ts", dir, ", approval: never"), "")
	f.Turns.Set("crash it", call("mcp__ts__crash", `{}`), call("mcp__ts__echo", `{"text":"after"}`), modeltest.Text("CRASH_SURVIVED"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("cr"), Cwd: gt.Ptr(gt.Cwd(t))})
	rc := gt.Submit(t, v, snap.SessionID, "s1", "crash it")
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted || mc.Text != "CRASH_SURVIVED" {
		t.Fatalf("turn %+v", mc)
	}
	tc := toolComplete(t, v, "mcp__ts__crash")
	if tc.Error == "" || !strings.Contains(tc.Result, "exited during the call") {
		t.Errorf("crash call: %+v, want an exited-during-the-call error", tc)
	}
	// The echo right after may meet the restart backoff (a clear error) or
	// the restarted server; either way it has a result and the turn went on.
	if tc := toolComplete(t, v, "mcp__ts__echo"); tc.Result == "" {
		t.Errorf("echo after the crash: %+v", tc)
	}
	gt.Await(t, wait, func() bool { return starts(t, dir) >= 2 })
	st, _ := v.MCPStatus(ctx)
	if len(st.Servers) != 1 || st.Servers[0].Restarts < 1 {
		t.Errorf("mcp.status %+v, want a restart counted", st)
	}
}

// TestHangTimesOut: a call over tool_timeout is cancelled: the server gets
// notifications/cancelled (its handler's context ends), the model gets an
// error result, the turn goes on.
func TestHangTimesOut(t *testing.T) {
	t.Parallel()
	dir := serverDir(t)
	f := fixture(t, tsYAML("ts", dir, `, approval: never, tool_timeout: "1s"`), "")
	f.Turns.Set("hang", call("mcp__ts__hang", `{}`), modeltest.Text("HANG_SURVIVED"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("hg"), Cwd: gt.Ptr(gt.Cwd(t))})
	rc := gt.Submit(t, v, snap.SessionID, "s1", "hang")
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted || mc.Text != "HANG_SURVIVED" {
		t.Fatalf("turn %+v", mc)
	}
	if tc := toolComplete(t, v, "mcp__ts__hang"); tc.Error == "" || !strings.Contains(tc.Result, "tool_timeout") {
		t.Errorf("hang call %+v, want a tool_timeout error", tc)
	}
	gt.Await(t, wait, func() bool {
		_, err := os.Stat(filepath.Join(dir, "cancelled"))
		return err == nil
	})
}

// TestInterruptCancels: session.interrupt during a call cancels it on the
// server and the turn ends interrupted, as for built-in tools.
func TestInterruptCancels(t *testing.T) {
	t.Parallel()
	dir := serverDir(t)
	f := fixture(t, tsYAML("ts", dir, ", approval: never"), "")
	f.Turns.Set("hang long", call("mcp__ts__hang", `{}`))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("in"), Cwd: gt.Ptr(gt.Cwd(t))})
	rc := gt.Submit(t, v, snap.SessionID, "s1", "hang long")
	v.Await(t, wait, func(ev protocol.Event) bool { return ev.Type == protocol.EventToolStart })
	gt.Await(t, wait, func() bool { // the call reached the server
		_, err := os.Stat(filepath.Join(dir, "hanging"))
		return err == nil
	})
	if _, err := v.InterruptSession(ctx, protocol.SessionInterruptParams{SessionID: snap.SessionID, ExecutionGeneration: 1}); err != nil {
		t.Fatal(err)
	}
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeInterrupted {
		t.Errorf("outcome %q, want interrupted", mc.Outcome)
	}
	gt.Await(t, wait, func() bool {
		_, err := os.Stat(filepath.Join(dir, "cancelled"))
		return err == nil
	})
}

// TestSharedProcess: 50 sessions using one server share exactly one
// process; a graceful stop leaves none; after SIGKILL of the daemon the
// next start leaves none of the old ones.
func TestSharedProcess(t *testing.T) {
	t.Parallel()
	dir := serverDir(t)
	bin := ownCopy(t) // other tests run the shared binary at the same time
	f := fixture(t, fmt.Sprintf("  ts: {command: %q, cwd: %q, approval: never}\n", bin, dir), "")
	const n = 50
	for i := range n {
		f.Turns.Set(fmt.Sprintf("share %d", i), call("mcp__ts__add", fmt.Sprintf(`{"a":%d,"b":1}`, i)), modeltest.Text("SHARED"))
	}
	d := f.Start()
	ctx := gt.Context(t, 2*wait)
	v := d.View(ctx)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ids []string
	for i := range n {
		wg.Go(func() {
			snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr(fmt.Sprintf("sh%d", i)), Cwd: gt.Ptr(dir)})
			rc := gt.Submit(t, v, snap.SessionID, "s", fmt.Sprintf("share %d", i))
			mu.Lock()
			ids = append(ids, rc.AdmissionID)
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, id := range ids {
		if mc := gt.AwaitComplete(t, v, id, 2*wait); mc.Text != "SHARED" {
			t.Fatalf("turn %+v", mc)
		}
	}
	if got := starts(t, dir); got != 1 {
		t.Errorf("%d server starts for %d sessions, want exactly 1", got, n)
	}
	if got := procsRunning(bin); got != 1 {
		t.Errorf("%d server processes running, want 1", got)
	}
	st, _ := v.MCPStatus(ctx)
	if len(st.Servers) != 1 || st.Servers[0].Sessions != n || st.Servers[0].State != protocol.MCPStateReady {
		t.Errorf("mcp.status %+v, want one ready server used by %d sessions", st, n)
	}
	_ = v.Close()
	if code := d.Stop(); code != 0 {
		t.Fatalf("gateway stop exited %d", code)
	}
	if got := procsRunning(bin); got != 0 {
		t.Errorf("%d server processes after gateway stop, want 0", got)
	}

	d = f.Start()
	v = d.View(ctx)
	// A session created before the restart restores (policy.mcp passes the
	// restore checks) and uses the server again.
	old := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("sh7"), Cwd: gt.Ptr(dir)})
	gt.Resume(t, v, old.SessionID)
	rc := gt.Submit(t, v, old.SessionID, "again", "share 7")
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Text != "SHARED" {
		t.Fatalf("restored session's turn %+v", mc)
	}
	if got := procsRunning(bin); got != 1 {
		t.Fatalf("%d server processes, want 1", got)
	}
	d.Kill()
	f.Start()
	gt.Await(t, wait, func() bool { return procsRunning(bin) == 0 })
}

// TestListChanged: notifications/tools/list_changed refreshes the list; the
// next turn is offered the new tool.
func TestListChanged(t *testing.T) {
	t.Parallel()
	dir := serverDir(t)
	f := fixture(t, tsYAML("ts", dir, ", approval: never"), "")
	f.Turns.Set("grow", call("mcp__ts__grow", `{}`), modeltest.Text("GREW"))
	f.Turns.Set("use grown", call("mcp__ts__grown", `{}`), modeltest.Text("USED"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("lc"), Cwd: gt.Ptr(gt.Cwd(t))})
	rc := gt.Submit(t, v, snap.SessionID, "s1", "grow")
	gt.AwaitComplete(t, v, rc.AdmissionID, wait)
	if gt.RequestsFor(f.Model, "grow")[0].HasTool("mcp__ts__grown") {
		t.Fatal("grown offered before it existed")
	}
	var before int
	gt.Await(t, wait, func() bool {
		st, _ := v.MCPStatus(ctx)
		if len(st.Servers) == 1 && before == 0 {
			before = st.Servers[0].Tools
		}
		return len(st.Servers) == 1 && st.Servers[0].Tools == 7
	})
	rc = gt.Submit(t, v, snap.SessionID, "s2", "use grown")
	gt.AwaitComplete(t, v, rc.AdmissionID, wait)
	if res := gt.RequestsFor(f.Model, "use grown")[1].ToolResults(); len(res) == 0 || res[len(res)-1].Content != "grown" {
		t.Errorf("grown result %+v", res)
	}
}

// TestBadServers: a server that cannot start and one that prints garbage
// on stdout are failed with a reason in mcp.status; an enormous result is
// capped like terminal output; the turns and the daemon go on.
func TestBadServers(t *testing.T) {
	t.Parallel()
	dir := serverDir(t)
	servers := tsYAML("ts", dir, ", approval: never") +
		`  missing: {command: /nonexistent/mcp-server, approval: never, startup_timeout: "5s"}` + "\n" +
		fmt.Sprintf("  garbage: {command: %q, args: [-garbage], cwd: %q, approval: never, startup_timeout: \"5s\"}\n", testServer, gt.Cwd(t))
	f := fixture(t, servers, "")
	f.Turns.Set("big", call("mcp__ts__big", `{"bytes":5000000}`), modeltest.Text("BIG_DONE"))
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("bad"), Cwd: gt.Ptr(gt.Cwd(t))})
	rc := gt.Submit(t, v, snap.SessionID, "s1", "big")
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Text != "BIG_DONE" {
		t.Fatalf("turn %+v", mc)
	}
	res := gt.RequestsFor(f.Model, "big")[1].ToolResults()
	if len(res) != 1 || len(res[0].Content) > 70<<10 || !strings.Contains(res[0].Content, "output truncated") {
		t.Errorf("big result: %d bytes, want capped at 64 KiB with a note", len(res[0].Content))
	}
	st, err := v.MCPStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]protocol.MCPServerStatus{}
	for _, s := range st.Servers {
		by[s.Name] = s
	}
	if s := by["missing"]; s.State != protocol.MCPStateFailed || !strings.Contains(s.Error, "no such file") {
		t.Errorf("missing server %+v, want failed with the reason", s)
	}
	if s := by["garbage"]; s.State != protocol.MCPStateFailed || !strings.Contains(s.Error, "invalid character") {
		t.Errorf("garbage server %+v, want failed with the decode error", s)
	}
	if by["ts"].State != protocol.MCPStateReady {
		t.Errorf("ts %+v, want ready", by["ts"])
	}
}
