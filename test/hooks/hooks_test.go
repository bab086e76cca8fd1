// Package hooks holds the process tests of hooks (issue 12) through the
// real binary, the fake model and real hook scripts in bash and python3:
// PreToolUse blocking by exit 2 and by a JSON decision, PostToolUse seeing
// the tool's response, UserPromptSubmit context and rejection, fail_closed,
// accept_hooks as the only way in, project-hook consent, the timeout kill
// and the sandbox around every hook.
package hooks

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

const wait = 60 * time.Second

// env is one daemon with hooks configured, and a directory the hooks may
// write to (the ledger's writable root) for what they saw.
type env struct {
	f   *gt.Fixture
	v   *gt.Recorder
	ctx context.Context
	log string // writable by hooks: a sandbox writable root
	cwd string
}

// start writes the hook scripts (name → body, made executable in a
// scripts directory) and config.yaml's hooks section, which refers to them
// as {scripts}/NAME and to the log directory as {log}.
func start(t *testing.T, hooksYAML string, scripts map[string]string) *env {
	t.Helper()
	f := gt.NewFixture(t, gt.Config{}) // to learn the ledger's directory first
	log := filepath.Dir(f.Ledger.Path)
	// Hooks see the filesystem tools see: the host's /tmp is replaced, so
	// the scripts live under the ledger's directory (a writable root).
	dir := filepath.Join(log, "scripts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	expand := func(s string) string {
		return strings.NewReplacer("{scripts}", dir, "{log}", log, "{home}", f.Home).Replace(s)
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(expand(body)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if hooksYAML != "" {
		cfg := f.Config
		cfg.Extra = "hooks:\n" + expand(hooksYAML) + cfg.Extra
		if err := os.WriteFile(filepath.Join(f.Home, "config.yaml"), []byte(cfg.YAML()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	d := f.Start()
	ctx := gt.Context(t, 2*wait)
	return &env{f: f, v: d.View(ctx), ctx: ctx, log: log, cwd: gt.Cwd(t)}
}

func (e *env) session(t *testing.T, id string, accept bool) string {
	t.Helper()
	snap := gt.Create(t, e.v, protocol.SessionCreateParams{
		RequestID: gt.Ptr(id), Cwd: &e.cwd, Yolo: gt.Ptr(true), AcceptHooks: gt.Ptr(accept),
	})
	return snap.SessionID
}

func (e *env) turn(t *testing.T, sid, id, prompt string) protocol.MessageCompletePayload {
	t.Helper()
	rc := gt.Submit(t, e.v, sid, id, prompt)
	return gt.AwaitComplete(t, e.v, rc.AdmissionID, wait)
}

func (e *env) hookRuns(sid string) []protocol.HookRunPayload {
	var out []protocol.HookRunPayload
	for _, ev := range e.v.Events() {
		if ev.Type == protocol.EventHookRun && ev.SessionID == sid {
			var p protocol.HookRunPayload
			_ = json.Unmarshal(ev.Payload, &p)
			out = append(out, p)
		}
	}
	return out
}

// toolMessage is the content of the tool message the model got back for
// the turn started by prompt ("" when none).
func (e *env) toolMessage(prompt string) string {
	out := ""
	for _, r := range gt.RequestsFor(e.f.Model, prompt) {
		for _, m := range r.Messages {
			if m.Role == "tool" {
				out = m.Content // the last one: earlier turns' are history
			}
		}
	}
	return out
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("read %s: %v", p, err)
	}
	return string(b)
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on this machine")
	}
}

const blockTerminal = `  PreToolUse:
    - matcher: terminal
      hooks:
        - type: command
          command: "{scripts}/deny.sh"
`

const denyScript = `#!/bin/bash
cat > {log}/pre-input.json
echo "no shell for you: policy 7" >&2
exit 2
`

func TestPreToolUseExit2BlocksTerminal(t *testing.T) {
	t.Parallel()
	e := start(t, blockTerminal, map[string]string{"deny.sh": denyScript})
	sid := e.session(t, "s1", true)
	effect := filepath.Join(e.cwd, "effect.txt")
	e.f.Turns.Set("run it", modeltest.ToolCall("terminal", gt.TerminalArgs("touch "+effect)), modeltest.Text("ok"))
	if mc := e.turn(t, sid, "p1", "run it"); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("outcome %s (%s)", mc.Outcome, mc.Error)
	}
	if exists(effect) {
		t.Fatal("the blocked command ran")
	}
	if got := e.toolMessage("run it"); !strings.Contains(got, "no shell for you: policy 7") || !strings.Contains(got, "blocked by a PreToolUse hook") {
		t.Fatalf("the model got %q; want the hook's stderr as the reason", got)
	}
	var in struct {
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
		Event     string `json:"hook_event_name"`
		Tool      string `json:"tool_name"`
		Input     struct {
			Command string `json:"command"`
		} `json:"tool_input"`
	}
	if err := json.Unmarshal([]byte(read(t, filepath.Join(e.log, "pre-input.json"))), &in); err != nil {
		t.Fatal(err)
	}
	if in.SessionID != sid || in.Cwd != e.cwd || in.Event != "PreToolUse" || in.Tool != "terminal" || in.Input.Command != "touch "+effect {
		t.Fatalf("hook stdin = %+v", in)
	}
	runs := e.hookRuns(sid)
	if len(runs) != 1 || runs[0].Outcome != protocol.HookBlocked || runs[0].ExitCode != 2 || !runs[0].Blocks || runs[0].Event != "PreToolUse" {
		t.Fatalf("hook.run events = %+v", runs)
	}
}

func TestPreToolUseJSONDecisionBlocks(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := start(t, `  PreToolUse:
    - matcher: "write_file|terminal"
      hooks:
        - {type: command, command: "python3 {scripts}/decide.py"}
`, map[string]string{"decide.py": `import json, sys
ev = json.load(sys.stdin)
if ev["tool_name"] == "write_file":
    print(json.dumps({"decision": "block", "reason": "python refuses " + ev["tool_input"]["path"]}))
else:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no terminal today"}}))
`})
	sid := e.session(t, "s1", true)
	e.f.Turns.Set("write it", modeltest.ToolCall("write_file", `{"path":"w.txt","content":"x"}`), modeltest.Text("ok"))
	e.f.Turns.Set("shell it", modeltest.ToolCall("terminal", gt.TerminalArgs("touch t.txt")), modeltest.Text("ok"))
	e.turn(t, sid, "p1", "write it")
	e.turn(t, sid, "p2", "shell it")
	if exists(filepath.Join(e.cwd, "w.txt")) || exists(filepath.Join(e.cwd, "t.txt")) {
		t.Fatal("a blocked tool ran")
	}
	if got := e.toolMessage("write it"); !strings.Contains(got, "python refuses w.txt") {
		t.Fatalf("write_file result %q", got)
	}
	if got := e.toolMessage("shell it"); !strings.Contains(got, "no terminal today") {
		t.Fatalf("terminal result %q", got)
	}
}

func TestPostToolUseSeesResponse(t *testing.T) {
	t.Parallel()
	needPython(t)
	e := start(t, `  PostToolUse:
    - matcher: terminal
      hooks:
        - {type: command, command: "python3 {scripts}/post.py"}
`, map[string]string{"post.py": `import json, sys
ev = json.load(sys.stdin)
open("{log}/post.json", "w").write(json.dumps(ev))
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "formatter ran"}}))
`})
	sid := e.session(t, "s1", true)
	e.f.Turns.Set("echo", modeltest.ToolCall("terminal", gt.TerminalArgs("echo hello-from-tool")), modeltest.Text("ok"))
	e.turn(t, sid, "p1", "echo")
	var ev struct {
		Event string `json:"hook_event_name"`
		Resp  struct {
			Output  string `json:"output"`
			IsError bool   `json:"is_error"`
		} `json:"tool_response"`
	}
	if err := json.Unmarshal([]byte(read(t, filepath.Join(e.log, "post.json"))), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Event != "PostToolUse" || !strings.Contains(ev.Resp.Output, "hello-from-tool") || ev.Resp.IsError {
		t.Fatalf("PostToolUse stdin = %+v", ev)
	}
	if got := e.toolMessage("echo"); !strings.Contains(got, "hello-from-tool") || !strings.Contains(got, "formatter ran") {
		t.Fatalf("the model got %q", got)
	}
}

func TestUserPromptSubmitContextAndRejection(t *testing.T) {
	t.Parallel()
	e := start(t, `  UserPromptSubmit:
    - hooks:
        - {type: command, command: "{scripts}/prompt.sh"}
`, map[string]string{"prompt.sh": `#!/bin/bash
in=$(cat)
if grep -q forbidden <<<"$in"; then echo "prompt mentions the forbidden word" >&2; exit 2; fi
echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX-42: the build is green"}}'
`})
	sid := e.session(t, "s1", true)
	if mc := e.turn(t, sid, "p1", "hello there"); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("outcome %s", mc.Outcome)
	}
	found := false
	for _, r := range e.f.Model.Requests() {
		if u := r.Messages[len(r.Messages)-1]; u.Role == "user" && strings.Contains(u.Content, "hello there") && strings.Contains(u.Content, "CTX-42: the build is green") {
			found = true
		}
	}
	if !found {
		t.Fatal("no model request carries the hook's additionalContext with the prompt")
	}
	n := len(e.f.Model.Requests())
	mc := e.turn(t, sid, "p2", "say the forbidden word")
	if mc.Outcome != protocol.OutcomeRejected || !strings.Contains(mc.Error, "prompt mentions the forbidden word") {
		t.Fatalf("outcome %s (%s); want rejected with the hook's stderr", mc.Outcome, mc.Error)
	}
	for _, r := range e.f.Model.Requests()[n:] {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "forbidden") {
				t.Fatal("the rejected prompt reached the model")
			}
		}
	}
	// The rejected prompt is not in the next turn's history either.
	e.turn(t, sid, "p3", "after")
	for _, r := range gt.RequestsFor(e.f.Model, "after") {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "forbidden") {
				t.Fatal("the rejected prompt is in the transcript")
			}
		}
	}
}

func TestFailClosed(t *testing.T) {
	t.Parallel()
	e := start(t, `  PreToolUse:
    - matcher: terminal
      hooks:
        - {type: command, command: "echo broken >&2; exit 1", fail_closed: true}
    - matcher: write_file
      hooks:
        - {type: command, command: "exit 1"}
`, nil)
	sid := e.session(t, "s1", true)
	e.f.Turns.Set("both", modeltest.ToolCalls(
		modeltest.Call{Name: "terminal", Args: gt.TerminalArgs("touch closed.txt")},
		modeltest.Call{Name: "write_file", Args: `{"path":"open.txt","content":"x"}`},
	), modeltest.Text("ok"))
	if mc := e.turn(t, sid, "p1", "both"); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("outcome %s", mc.Outcome)
	}
	if exists(filepath.Join(e.cwd, "closed.txt")) {
		t.Fatal("a failing fail_closed hook did not block")
	}
	if !exists(filepath.Join(e.cwd, "open.txt")) {
		t.Fatal("a failing hook without fail_closed blocked")
	}
	runs := e.hookRuns(sid)
	if len(runs) != 2 || runs[0].Outcome != protocol.HookFailed || !runs[0].Blocks || !runs[0].FailClosed ||
		runs[1].Outcome != protocol.HookFailed || runs[1].Blocks || runs[1].ExitCode != 1 {
		t.Fatalf("hook.run = %+v", runs)
	}
}

func TestNotRunWithoutAcceptHooks(t *testing.T) {
	t.Parallel()
	e := start(t, blockTerminal, map[string]string{"deny.sh": denyScript})
	sid := e.session(t, "s1", false)
	effect := filepath.Join(e.cwd, "ran.txt")
	e.f.Turns.Set("run", modeltest.ToolCall("terminal", gt.TerminalArgs("touch "+effect)), modeltest.Text("ok"))
	e.turn(t, sid, "p1", "run")
	if !exists(effect) {
		t.Fatal("the command did not run in a session without accept_hooks")
	}
	if exists(filepath.Join(e.log, "pre-input.json")) || len(e.hookRuns(sid)) != 0 {
		t.Fatal("a hook ran in a session without accept_hooks")
	}
}

func TestTimeoutKillsTheHook(t *testing.T) {
	t.Parallel()
	e := start(t, `  PreToolUse:
    - hooks:
        - {type: command, command: "(sleep 3; touch {log}/survivor) & sleep 300", timeout: 1}
`, nil)
	sid := e.session(t, "s1", true)
	e.f.Turns.Set("slow", modeltest.ToolCall("terminal", gt.TerminalArgs("echo went on")), modeltest.Text("ok"))
	start := time.Now()
	if mc := e.turn(t, sid, "p1", "slow"); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("outcome %s", mc.Outcome)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the turn took %s: the hook was not killed at its timeout", d)
	}
	runs := e.hookRuns(sid)
	if len(runs) != 1 || runs[0].Outcome != protocol.HookTimeout || runs[0].ExitCode != -1 {
		t.Fatalf("hook.run = %+v", runs)
	}
	if got := e.toolMessage("slow"); !strings.Contains(got, "went on") {
		t.Fatalf("the tool did not run after a timed-out hook without fail_closed: %q", got)
	}
	time.Sleep(4 * time.Second) // the hook's background child would have written by now
	if exists(filepath.Join(e.log, "survivor")) {
		t.Fatal("the hook's background child outlived the timeout kill")
	}
}

func TestHookRunsInsideTheSandbox(t *testing.T) {
	t.Parallel()
	e := start(t, `  PreToolUse:
    - hooks:
        - {type: command, command: "{scripts}/peek.sh"}
`, map[string]string{"peek.sh": `#!/bin/bash
{ cat "{home}/.env"; echo "exit=$?"; env | grep '^HERMES_' | grep -vc '^HERMES_TOOL_PROCESS=' ; } > {log}/peek.txt 2>&1
exit 0
`})
	if err := os.WriteFile(filepath.Join(e.f.Home, ".env"), []byte("HOOK_SECRET=sk-hooks-must-not-see-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sid := e.session(t, "s1", true)
	e.f.Turns.Set("peek", modeltest.ToolCall("terminal", gt.TerminalArgs("true")), modeltest.Text("ok"))
	e.turn(t, sid, "p1", "peek")
	got := read(t, filepath.Join(e.log, "peek.txt"))
	if strings.Contains(got, "sk-hooks-must-not-see") {
		t.Fatalf("a hook read the profile's .env: %q", got)
	}
	if !strings.Contains(got, "exit=1") || !strings.HasSuffix(strings.TrimSpace(got), "\n0") {
		t.Fatalf("a hook got HERMES_* variables: %q", got)
	}
}

func TestMalformedHooksSectionKeepsTheDaemon(t *testing.T) {
	t.Parallel()
	e := start(t, `  PreToolUse:
    - matcher: terminal
      hooks:
        - {type: command, command: "exit 2", fail_close: true}
`, nil)
	gt.Await(t, wait, func() bool {
		return strings.Contains(e.f.D.Output(), "hooks.PreToolUse[0].hooks[0].fail_close: unknown key")
	})
	sid := e.session(t, "s1", true)
	e.f.Turns.Set("run", modeltest.ToolCall("terminal", gt.TerminalArgs("touch ok.txt")), modeltest.Text("ok"))
	if mc := e.turn(t, sid, "p1", "run"); mc.Outcome != protocol.OutcomeCompleted || !exists(filepath.Join(e.cwd, "ok.txt")) {
		t.Fatalf("outcome %s; the session must run with the last good hooks (none)", mc.Outcome)
	}
}

func TestProjectHooksAskConsentOnceAndAfterAChange(t *testing.T) {
	t.Parallel()
	e := start(t, "", nil)
	project := func(marker string) {
		body := "PreToolUse:\n  - hooks:\n      - {type: command, command: \"echo " + marker + " >> " + e.log + "/project.log\"}\n"
		if err := os.MkdirAll(filepath.Join(e.cwd, ".hermes"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.cwd, ".hermes", "hooks.yaml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.f.Turns.Set("go", modeltest.ToolCall("terminal", gt.TerminalArgs("true")), modeltest.Text("ok"))
	logPath := filepath.Join(e.log, "project.log")
	consents := func() int {
		return e.v.Count(func(ev protocol.Event) bool {
			var p protocol.Prompt
			_ = json.Unmarshal(ev.Payload, &p)
			return ev.Type == protocol.EventApprovalRequest && p.Kind == "hooks"
		})
	}
	// First use: asked (even under yolo); nothing ran before the answer.
	project("v1")
	sid := e.session(t, "s1", true)
	rc := gt.Submit(t, e.v, sid, "p1", "go")
	pr := gt.AwaitPrompt(t, e.v, wait)
	if pr.Kind != "hooks" || !strings.Contains(pr.Command, "echo v1") || strings.Join(pr.Choices, ",") != "once,deny" {
		t.Fatalf("consent prompt = %+v", pr)
	}
	if exists(logPath) {
		t.Fatal("a project hook ran before its consent")
	}
	if _, err := e.v.RespondApproval(e.ctx, protocol.ApprovalRespondParams{SessionID: sid,
		ExecutionGeneration: pr.ExecutionGeneration, PromptID: pr.PromptID, Choice: "once"}); err != nil {
		t.Fatal(err)
	}
	gt.AwaitComplete(t, e.v, rc.AdmissionID, wait)
	if got := read(t, logPath); got != "v1\n" {
		t.Fatalf("project.log = %q", got)
	}
	// Same file, a new session: remembered, not asked.
	sid2 := e.session(t, "s2", true)
	e.turn(t, sid2, "p2", "go")
	if n := consents(); n != 1 {
		t.Fatalf("%d consent prompts; want 1 (remembered per cwd)", n)
	}
	// A changed file asks again; denied, it does not run.
	project("v2")
	sid3 := e.session(t, "s3", true)
	rc = gt.Submit(t, e.v, sid3, "p3", "go")
	gt.Await(t, wait, func() bool { return consents() == 2 })
	var pr2 protocol.Prompt
	for _, ev := range e.v.Events() {
		if ev.Type == protocol.EventApprovalRequest && ev.SessionID == sid3 {
			pr2 = gt.Payload[protocol.Prompt](t, ev)
		}
	}
	if !strings.Contains(pr2.Command, "echo v2") {
		t.Fatalf("second consent prompt = %+v", pr2)
	}
	if _, err := e.v.RespondApproval(e.ctx, protocol.ApprovalRespondParams{SessionID: sid3,
		ExecutionGeneration: pr2.ExecutionGeneration, PromptID: pr2.PromptID, Choice: "deny"}); err != nil {
		t.Fatal(err)
	}
	if mc := gt.AwaitComplete(t, e.v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("outcome %s", mc.Outcome)
	}
	if got := read(t, logPath); got != "v1\nv1\n" {
		t.Fatalf("project.log = %q; the denied v2 hook must not run", got)
	}
}

// TestCrashDuringAHook: a hook running when the daemon dies is not run
// again; its tool call is closed like any interrupted one.
func TestCrashDuringAHook(t *testing.T) {
	t.Parallel()
	e := start(t, `  PreToolUse:
    - hooks:
        - {type: command, command: "echo started >> {log}/crash.log; sleep 300"}
`, nil)
	sid := e.session(t, "s1", true)
	effect := filepath.Join(e.cwd, "after-crash.txt")
	e.f.Turns.Set("hang", modeltest.ToolCall("terminal", gt.TerminalArgs("touch "+effect)), modeltest.Text("ok"))
	rc := gt.Submit(t, e.v, sid, "p1", "hang")
	logPath := filepath.Join(e.log, "crash.log")
	// The line, not the file: the shell creates the file before it writes.
	gt.Await(t, wait, func() bool { b, _ := os.ReadFile(logPath); return string(b) == "started\n" })
	d := e.f.Crash()
	v := d.View(e.ctx)
	gt.Resume(t, v, sid)
	r := gt.AwaitStatus(t, v, sid, rc.AdmissionID, protocol.StatusUnknown, wait)
	if _, err := v.ResolveUnknown(e.ctx, protocol.ResolveUnknownParams{SessionID: sid, AdmissionID: rc.AdmissionID,
		ExecutionGeneration: *r.ExecutionGeneration}); err != nil {
		t.Fatal(err)
	}
	e.turn2(t, v, sid, "p2", "next")
	if got := read(t, logPath); got != "started\n" {
		t.Fatalf("crash.log = %q: the hook cut by the crash ran again", got)
	}
	if exists(effect) {
		t.Fatal("the tool of the cut hook ran")
	}
	found := false
	for _, req := range gt.RequestsFor(e.f.Model, "next") {
		for _, m := range req.Messages {
			if m.Role == "tool" && strings.Contains(m.Content, "interrupted") {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("the cut tool call was not closed as interrupted in the next request")
	}
}

func (e *env) turn2(t *testing.T, v *gt.Recorder, sid, id, prompt string) {
	t.Helper()
	rc := gt.Submit(t, v, sid, id, prompt)
	gt.AwaitComplete(t, v, rc.AdmissionID, wait)
}

// TestPreToolUseAskForcesApproval: permissionDecision "ask" asks a human
// (once/deny) even under yolo for a harmless command; "deny" is honoured.
func TestPreToolUseAskForcesApproval(t *testing.T) {
	t.Parallel()
	e := start(t, `  PreToolUse:
    - matcher: terminal
      hooks:
        - {type: command, command: "echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"touching files needs a human\"}}'"}
`, nil)
	sid := e.session(t, "s1", true)
	effect := filepath.Join(e.cwd, "asked.txt")
	e.f.Turns.Set("ask", modeltest.ToolCall("terminal", gt.TerminalArgs("touch "+effect)), modeltest.Text("ok"))
	rc := gt.Submit(t, e.v, sid, "p1", "ask")
	pr := gt.AwaitPrompt(t, e.v, wait)
	if pr.Kind != "approval" || pr.Command != "touch "+effect || !strings.Contains(pr.Description, "touching files needs a human") ||
		strings.Join(pr.Choices, ",") != "once,deny" {
		t.Fatalf("prompt = %+v", pr)
	}
	if _, err := e.v.RespondApproval(e.ctx, protocol.ApprovalRespondParams{SessionID: sid,
		ExecutionGeneration: pr.ExecutionGeneration, PromptID: pr.PromptID, Choice: "deny"}); err != nil {
		t.Fatal(err)
	}
	gt.AwaitComplete(t, e.v, rc.AdmissionID, wait)
	if exists(effect) {
		t.Fatal("the command ran although the human denied what the hook asked")
	}
}
