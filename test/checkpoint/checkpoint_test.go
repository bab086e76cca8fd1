// Package checkpoint holds the process tests of checkpoints and rewind
// (issue 11) through the real binary and the fake model: snapshots before a
// turn's first change by write_file and by the shell, session.checkpoints,
// session.rewind in each mode, the user's own edits turned into conflicts,
// a git cwd whose repository is untouched, a rewind after a restart, and
// bad input.
package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/faults"
	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestMain(m *testing.M) { os.Exit(gt.Main(m)) }

const wait = 60 * time.Second

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on this machine")
	}
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(dir, rel string) string {
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

func exists(dir, rel string) bool {
	_, err := os.Lstat(filepath.Join(dir, rel))
	return err == nil
}

func writeArgs(path, content string) string {
	b, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return string(b)
}

// seed is the tree before the agent's turn.
func seed(t *testing.T, cwd string) {
	write(t, cwd, "a.txt", "original a\n")
	write(t, cwd, "d/x.txt", "x one\n")
	write(t, cwd, "m.txt", "to be moved\n")
	write(t, cwd, "gone.txt", "to be removed\n")
}

// agentScript is one turn that changes files with write_file and with the
// shell (sed -i, rm, mv, a new directory).
func agentScript(f *gt.Fixture, prompt string) {
	f.Turns.Set(prompt,
		modeltest.ToolCall("write_file", writeArgs("a.txt", "written by the agent\n")),
		modeltest.ToolCall("terminal", gt.TerminalArgs(
			"sed -i s/one/two/ d/x.txt && rm gone.txt && mv m.txt moved.txt && mkdir -p newdir/deep && echo n > newdir/deep/f.txt && echo shell > b.txt")),
		modeltest.Text("EDITS_DONE"))
}

type env struct {
	f   *gt.Fixture
	d   *gt.Daemon
	v   *gt.Recorder
	ctx context.Context
	sid string
	cwd string
}

func start(t *testing.T, cwd string, checkpoints bool) *env {
	t.Helper()
	f := gt.NewFixture(t, gt.Config{})
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{
		RequestID: gt.Ptr("ckpt"), Cwd: &cwd, Yolo: gt.Ptr(true), Checkpoints: gt.Ptr(checkpoints),
	})
	return &env{f: f, d: d, v: v, ctx: ctx, sid: snap.SessionID, cwd: cwd}
}

func (e *env) turn(t *testing.T, id, prompt string) string {
	t.Helper()
	rc := gt.Submit(t, e.v, e.sid, id, prompt)
	if mc := gt.AwaitComplete(t, e.v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("turn %s: outcome %q (%s)", prompt, mc.Outcome, mc.Error)
	}
	return rc.AdmissionID
}

func (e *env) checkpoints(t *testing.T) []protocol.Checkpoint {
	t.Helper()
	res, err := e.v.Checkpoints(e.ctx, e.sid)
	if err != nil {
		t.Fatalf("session.checkpoints: %v", err)
	}
	return res.Checkpoints
}

func (e *env) rewind(t *testing.T, ckpt, mode string, force bool) protocol.SessionRewindResult {
	t.Helper()
	p := protocol.SessionRewindParams{SessionID: e.sid, CheckpointID: ckpt, Mode: mode}
	if force {
		p.Force = gt.Ptr(true)
	}
	res, err := e.v.Rewind(e.ctx, p)
	if err != nil {
		t.Fatalf("session.rewind %s %s: %v", ckpt, mode, err)
	}
	return res
}

func TestRewindFilesUndoesWriteFileAndShell(t *testing.T) {
	t.Parallel()
	needGit(t)
	cwd := gt.Cwd(t)
	seed(t, cwd)
	e := start(t, cwd, true)
	agentScript(e.f, "edit everything")
	adm := e.turn(t, "t1", "edit everything")
	if read(cwd, "b.txt") != "shell\n" || read(cwd, "a.txt") != "written by the agent\n" {
		t.Fatalf("the turn did not make its edits: a=%q b=%q", read(cwd, "a.txt"), read(cwd, "b.txt"))
	}
	// One checkpoint for the turn, though it made two mutating calls.
	if n := e.v.Count(func(ev protocol.Event) bool { return ev.Type == protocol.EventCheckpointCreated }); n != 1 {
		t.Errorf("checkpoint.created events: %d, want 1", n)
	}
	ev := e.v.Await(t, wait, func(ev protocol.Event) bool { return ev.Type == protocol.EventCheckpointCreated })
	created := gt.Payload[protocol.CheckpointCreatedPayload](t, ev)
	if created.AdmissionID != adm || created.Files != 4 || ev.Seq == 0 {
		t.Errorf("checkpoint.created %+v (seq %d): want admission %s, 4 files, journaled", created, ev.Seq, adm)
	}
	cks := e.checkpoints(t)
	if len(cks) != 1 || cks[0].CheckpointID != created.CheckpointID || cks[0].Summary != "edit everything" || cks[0].Files != 4 {
		t.Fatalf("session.checkpoints = %+v", cks)
	}
	res := e.rewind(t, cks[0].CheckpointID, protocol.RewindFiles, false)
	want := protocol.SessionRewindResult{
		Status:    protocol.RewindStatusRewound,
		Restored:  []string{"a.txt", "d/x.txt", "gone.txt", "m.txt"},
		Removed:   []string{"b.txt", "moved.txt", "newdir/deep/f.txt"},
		Conflicts: []string{},
	}
	if d := cmp.Diff(want, res); d != "" {
		t.Fatalf("rewind (-want +got):\n%s", d)
	}
	for rel, content := range map[string]string{
		"a.txt": "original a\n", "d/x.txt": "x one\n", "m.txt": "to be moved\n", "gone.txt": "to be removed\n",
	} {
		if got := read(cwd, rel); got != content {
			t.Errorf("%s = %q, want %q", rel, got, content)
		}
	}
	for _, rel := range []string{"b.txt", "moved.txt", "newdir"} {
		if exists(cwd, rel) {
			t.Errorf("%s still exists after the rewind", rel)
		}
	}
	if exists(cwd, ".git") {
		t.Error("a .git appeared in a cwd that was not a repository")
	}
	e.v.Await(t, wait, func(ev protocol.Event) bool { return ev.Type == protocol.EventSessionRewound })
	// A repeat is idempotent: nothing left to do.
	again := e.rewind(t, cks[0].CheckpointID, protocol.RewindFiles, false)
	if len(again.Restored)+len(again.Removed)+len(again.Conflicts) != 0 || again.Status != protocol.RewindStatusRewound {
		t.Errorf("repeated rewind = %+v, want rewound with nothing to do", again)
	}
}

func TestUserEditIsAConflict(t *testing.T) {
	t.Parallel()
	needGit(t)
	cwd := gt.Cwd(t)
	seed(t, cwd)
	e := start(t, cwd, true)
	e.f.Turns.Set("write a", modeltest.ToolCall("write_file", writeArgs("a.txt", "agent\n")), modeltest.Text("ok"))
	e.turn(t, "t1", "write a")
	write(t, cwd, "a.txt", "the user's own work\n") // after the agent wrote it
	ck := e.checkpoints(t)[0].CheckpointID
	res := e.rewind(t, ck, protocol.RewindFiles, false)
	if res.Status != protocol.RewindStatusConflicts || !cmp.Equal(res.Conflicts, []string{"a.txt"}) {
		t.Fatalf("rewind = %+v, want conflicts [a.txt]", res)
	}
	if got := read(cwd, "a.txt"); got != "the user's own work\n" {
		t.Fatalf("a.txt = %q: the conflict changed the user's file", got)
	}
	if n := e.v.Count(func(ev protocol.Event) bool { return ev.Type == protocol.EventSessionRewound }); n != 0 {
		t.Errorf("a refused rewind journaled session.rewound")
	}
	forced := e.rewind(t, ck, protocol.RewindFiles, true)
	if forced.Status != protocol.RewindStatusRewound || read(cwd, "a.txt") != "original a\n" {
		t.Errorf("forced rewind = %+v, a.txt = %q", forced, read(cwd, "a.txt"))
	}
}

func TestUserEditBetweenTurnsSurvives(t *testing.T) {
	t.Parallel()
	needGit(t)
	cwd := gt.Cwd(t)
	seed(t, cwd)
	e := start(t, cwd, true)
	e.f.Turns.Set("turn one", modeltest.ToolCall("terminal", gt.TerminalArgs("echo one > a.txt")), modeltest.Text("ok"))
	e.f.Turns.Set("turn two", modeltest.ToolCall("terminal", gt.TerminalArgs("echo two > d/x.txt")), modeltest.Text("ok"))
	e.turn(t, "t1", "turn one")
	write(t, cwd, "notes.txt", "the user's notes, between turns\n")
	e.turn(t, "t2", "turn two")
	cks := e.checkpoints(t)
	if len(cks) != 2 {
		t.Fatalf("checkpoints = %+v, want 2", cks)
	}
	res := e.rewind(t, cks[0].CheckpointID, protocol.RewindFiles, false)
	if res.Status != protocol.RewindStatusConflicts || !cmp.Equal(res.Conflicts, []string{"notes.txt"}) {
		t.Fatalf("rewind to turn one = %+v, want conflicts [notes.txt]", res)
	}
	if !exists(cwd, "notes.txt") || read(cwd, "a.txt") != "one\n" {
		t.Fatal("a refused rewind changed the tree")
	}
	// Rewinding only turn two keeps the notes (they are in its checkpoint).
	res = e.rewind(t, cks[1].CheckpointID, protocol.RewindFiles, false)
	if res.Status != protocol.RewindStatusRewound || !cmp.Equal(res.Restored, []string{"d/x.txt"}) {
		t.Fatalf("rewind to turn two = %+v", res)
	}
	if read(cwd, "notes.txt") == "<missing>" || read(cwd, "d/x.txt") != "x one\n" || read(cwd, "a.txt") != "one\n" {
		t.Errorf("after rewinding turn two: notes %q x %q a %q", read(cwd, "notes.txt"), read(cwd, "d/x.txt"), read(cwd, "a.txt"))
	}
}

// treeHash digests every path, mode and byte under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel + "\x00" + fi.Mode().String() + "\x00"))
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func userGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestGitCwdConversationAndRestart: in a cwd that is a git repository,
// whose .git stays byte-identical, a rewind of both after a daemon restart
// restores the files and continues the conversation from before the turn.
func TestGitCwdConversationAndRestart(t *testing.T) {
	t.Parallel()
	needGit(t)
	cwd := gt.Cwd(t)
	seed(t, cwd)
	write(t, cwd, ".gitignore", "*.log\n")
	userGit(t, cwd, "init", "-q")
	userGit(t, cwd, "add", "a.txt", ".gitignore")
	userGit(t, cwd, "commit", "-qm", "the user's history")
	write(t, cwd, "a.txt", "staged by the user\n")
	userGit(t, cwd, "add", "a.txt")
	dotgit := treeHash(t, filepath.Join(cwd, ".git"))

	e := start(t, cwd, true)
	e.f.Turns.Set("first turn", modeltest.Text("FIRST_ANSWER"))
	agentScript(e.f, "second turn")
	e.turn(t, "t1", "first turn") // no tool call: no checkpoint
	e.turn(t, "t2", "second turn")
	write(t, cwd, "build.log", "ignored output\n")
	cks := e.checkpoints(t)
	if len(cks) != 1 || cks[0].Summary != "second turn" {
		t.Fatalf("checkpoints = %+v, want one for the second turn", cks)
	}
	e.d.Kill()
	d := e.f.Start()
	e.v = d.View(e.ctx)
	gt.Resume(t, e.v, e.sid)
	res := e.rewind(t, cks[0].CheckpointID, protocol.RewindBoth, false)
	if res.Status != protocol.RewindStatusRewound || len(res.Restored) != 4 || len(res.Removed) != 3 {
		t.Fatalf("rewind both = %+v", res)
	}
	if got := treeHash(t, filepath.Join(cwd, ".git")); got != dotgit {
		t.Error("the user's .git changed")
	}
	if read(cwd, "a.txt") != "staged by the user\n" || read(cwd, "build.log") != "ignored output\n" {
		t.Errorf("a.txt %q, build.log %q", read(cwd, "a.txt"), read(cwd, "build.log"))
	}
	snap := gt.Resume(t, e.v, e.sid)
	var texts []string
	for _, m := range snap.Messages {
		texts = append(texts, m.Role+":"+m.Content)
	}
	if d := cmp.Diff([]string{"user:first turn", "assistant:FIRST_ANSWER"}, texts); d != "" {
		t.Errorf("conversation after rewind (-want +got):\n%s", d)
	}
	// The session goes on from there under the same logical id.
	e.f.Turns.Set("third turn", modeltest.Text("THIRD"))
	e.turn(t, "t3", "third turn")
}

func TestRewindBadInput(t *testing.T) {
	t.Parallel()
	needGit(t)
	cwd := gt.Cwd(t)
	seed(t, cwd)
	e := start(t, cwd, true)
	e.f.Turns.Set("write a", modeltest.ToolCall("write_file", writeArgs("a.txt", "agent\n")), modeltest.Text("ok"))
	e.turn(t, "t1", "write a")
	ck := e.checkpoints(t)[0].CheckpointID
	cases := []struct {
		name   string
		params any
		want   protocol.Reason
	}{
		{"unknown checkpoint", protocol.SessionRewindParams{SessionID: e.sid, CheckpointID: "ckpt-nope", Mode: "files"}, protocol.ReasonNotFound},
		{"unknown mode", protocol.SessionRewindParams{SessionID: e.sid, CheckpointID: ck, Mode: "everything"}, protocol.ReasonInvalidParams},
		{"missing mode", map[string]any{"session_id": e.sid, "checkpoint_id": ck}, protocol.ReasonInvalidParams},
		{"unknown key", map[string]any{"session_id": e.sid, "checkpoint_id": ck, "mode": "files", "dry_run": true}, protocol.ReasonInvalidParams},
		{"force not a bool", map[string]any{"session_id": e.sid, "checkpoint_id": ck, "mode": "files", "force": "yes"}, protocol.ReasonInvalidParams},
		{"unknown session", protocol.SessionRewindParams{SessionID: "local-nope", CheckpointID: ck, Mode: "files"}, protocol.ReasonNotFound},
	}
	for _, c := range cases {
		err := e.v.Call(e.ctx, protocol.MethodSessionRewind, c.params, nil)
		if gt.Reason(err) != c.want {
			t.Errorf("%s: err %v, want %s", c.name, err, c.want)
		}
	}
	if read(cwd, "a.txt") != "agent\n" {
		t.Errorf("bad input changed a.txt: %q", read(cwd, "a.txt"))
	}
	// Another session's checkpoint is not found in this one.
	other := gt.Create(t, e.v, protocol.SessionCreateParams{RequestID: gt.Ptr("other"), Cwd: &cwd, Checkpoints: gt.Ptr(true)})
	err := e.v.Call(e.ctx, protocol.MethodSessionRewind,
		protocol.SessionRewindParams{SessionID: other.SessionID, CheckpointID: ck, Mode: "files"}, nil)
	if gt.Reason(err) != protocol.ReasonNotFound {
		t.Errorf("another session's checkpoint: %v, want not_found", err)
	}
	// A session with checkpoints off says so.
	off := gt.Create(t, e.v, protocol.SessionCreateParams{RequestID: gt.Ptr("off"), Cwd: &cwd})
	err = e.v.Call(e.ctx, protocol.MethodSessionRewind,
		protocol.SessionRewindParams{SessionID: off.SessionID, CheckpointID: ck, Mode: "files"}, nil)
	if gt.Reason(err) != protocol.ReasonInvalidParams {
		t.Errorf("checkpoints off: %v, want invalid_params", err)
	}
}

func TestCheckpointsOffTakesNone(t *testing.T) {
	t.Parallel()
	needGit(t)
	cwd := gt.Cwd(t)
	seed(t, cwd)
	e := start(t, cwd, false)
	e.f.Turns.Set("write a", modeltest.ToolCall("write_file", writeArgs("a.txt", "agent\n")), modeltest.Text("ok"))
	e.turn(t, "t1", "write a")
	if cks := e.checkpoints(t); len(cks) != 0 {
		t.Errorf("checkpoints = %+v, want none", cks)
	}
	if _, err := os.Stat(filepath.Join(e.f.Home, "checkpoints")); err == nil {
		t.Error("a shadow repository was made for a session with checkpoints off")
	}
}

// TestNoGitSaysSo: without git the daemon says so in its log, keeps
// working, and a session that asked for checkpoints gets checkpoint.failed
// for its turn instead of a silent no-op.
func TestNoGitSaysSo(t *testing.T) {
	t.Parallel()
	cwd := gt.Cwd(t)
	seed(t, cwd)
	f := gt.NewFixture(t, gt.Config{})
	d := f.Start("PATH=" + t.TempDir()) // no git (and nothing else) on PATH
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("nogit"), Cwd: &cwd, Checkpoints: gt.Ptr(true)})
	f.Turns.Set("write a", modeltest.ToolCall("write_file", writeArgs("a.txt", "agent\n")), modeltest.Text("ok"))
	rc := gt.Submit(t, v, snap.SessionID, "t1", "write a")
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("outcome %q", mc.Outcome)
	}
	ev := v.Await(t, wait, func(ev protocol.Event) bool { return ev.Type == protocol.EventCheckpointFailed })
	p := gt.Payload[protocol.CheckpointFailedPayload](t, ev)
	if p.AdmissionID != rc.AdmissionID || !strings.Contains(p.Reason, "git is not installed") {
		t.Errorf("checkpoint.failed %+v", p)
	}
	if read(cwd, "a.txt") != "agent\n" {
		t.Error("the write did not happen without checkpoints")
	}
	log, _ := os.ReadFile(filepath.Join(f.Home, "logs", "gateway.log"))
	if !strings.Contains(string(log), "checkpoints unavailable") {
		t.Error("the gateway log does not say checkpoints are unavailable")
	}
	err := v.Call(ctx, protocol.MethodSessionRewind,
		protocol.SessionRewindParams{SessionID: snap.SessionID, CheckpointID: "ckpt-x", Mode: "files"}, nil)
	if gt.Reason(err) != protocol.ReasonNotFound {
		t.Errorf("rewind without checkpoints: %v, want not_found", err)
	}
}

// TestRewindCrashCompletesAtStart: a daemon SIGKILLed right after a
// rewind's plan was committed (nothing changed yet) completes the rewind
// at its next start, before any turn runs, and journals it as recovered.
func TestRewindCrashCompletesAtStart(t *testing.T) {
	t.Parallel()
	needGit(t)
	cwd := gt.Cwd(t)
	seed(t, cwd)
	f := gt.NewFixture(t, gt.Config{}, "faults")
	d := f.Start("HERMES_FAULTS=" + faults.RewindAfterPlan)
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("crash"), Cwd: &cwd, Yolo: gt.Ptr(true), Checkpoints: gt.Ptr(true)})
	agentScript(f, "edit everything")
	rc := gt.Submit(t, v, snap.SessionID, "t1", "edit everything")
	gt.AwaitComplete(t, v, rc.AdmissionID, wait)
	res, err := v.Checkpoints(ctx, snap.SessionID)
	if err != nil || len(res.Checkpoints) != 1 {
		t.Fatalf("checkpoints %+v %v", res, err)
	}
	_, err = v.Rewind(ctx, protocol.SessionRewindParams{SessionID: snap.SessionID, CheckpointID: res.Checkpoints[0].CheckpointID, Mode: "both"})
	if err == nil {
		t.Fatal("the rewind answered although the daemon crashed in it")
	}
	d.AwaitCrash(wait)
	if read(cwd, "b.txt") != "shell\n" {
		t.Fatal("files changed before the crash point")
	}
	d = f.Start()
	v = d.View(ctx)
	after := gt.Resume(t, v, snap.SessionID)
	if read(cwd, "a.txt") != "original a\n" || exists(cwd, "b.txt") || exists(cwd, "newdir") {
		t.Errorf("after restart: a=%q b exists %v newdir exists %v", read(cwd, "a.txt"), exists(cwd, "b.txt"), exists(cwd, "newdir"))
	}
	if len(after.Messages) != 0 {
		t.Errorf("conversation after recovered rewind: %d messages, want 0", len(after.Messages))
	}
	evs, err := v.EventsSince(ctx, protocol.EventsSinceParams{SessionID: snap.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	var rewound []protocol.SessionRewoundPayload
	for _, ev := range evs.Events {
		if ev.Type == protocol.EventSessionRewound {
			rewound = append(rewound, gt.Payload[protocol.SessionRewoundPayload](t, ev))
		}
	}
	if len(rewound) != 1 || !rewound[0].Recovered {
		t.Errorf("session.rewound events %+v, want one, recovered", rewound)
	}
}
