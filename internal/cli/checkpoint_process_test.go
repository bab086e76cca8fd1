package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// `hermes sessions checkpoints` lists the turn's checkpoint and `sessions
// rewind` returns the cwd to it; a file the user changed after the agent
// is a conflict that changes nothing until --force.
func TestSessionsCheckpointsAndRewind(t *testing.T) {
	t.Parallel()
	f := gatewaytest.NewFixture(t, gatewaytest.Config{NoCompression: true, Extra: "checkpoints: {enabled: true}\n"})
	f.Start()
	cwd := t.TempDir()
	a, b := filepath.Join(cwd, "a.txt"), filepath.Join(cwd, "b.txt")
	gatewaytest.WriteFile(t, a, "original\n")
	f.Turns.Set("edit", modeltest.ToolCall("terminal", gatewaytest.TerminalArgs("echo agent > a.txt; echo new > b.txt")), modeltest.Text("edited"))
	if r := hermes(t, f, "", "chat", "-z", "edit", "--yolo", "--cwd", cwd, "--request-id", "ck"); r.code != 0 {
		t.Fatalf("chat: %d %q", r.code, r.err)
	}
	sid := onlySession(t, f)
	r := hermes(t, f, "", "sessions", "checkpoints", sid, "--json")
	var res protocol.SessionCheckpointsResult
	if err := json.Unmarshal([]byte(r.out), &res); r.code != 0 || err != nil || len(res.Checkpoints) != 1 {
		t.Fatalf("checkpoints: %d %v %q %q", r.code, err, r.out, r.err)
	}
	ck := res.Checkpoints[0].CheckpointID
	if text := hermes(t, f, "", "sessions", "checkpoints", sid[:len("local-")+8]); !strings.Contains(text.out, ck) || !strings.Contains(text.out, "edit") {
		t.Errorf("checkpoints (text, by prefix): %q", text.out)
	}

	gatewaytest.WriteFile(t, a, "the user's own\n") // changed after the agent wrote it
	conflict := hermes(t, f, "", "sessions", "rewind", sid, ck)
	if conflict.code != 1 || !strings.Contains(conflict.out, "conflict  a.txt") || !strings.Contains(conflict.err, "--force") {
		t.Errorf("rewind over a user edit: %d %q %q", conflict.code, conflict.out, conflict.err)
	}
	assertBytes(t, a, "the user's own\n")
	assertBytes(t, b, "new\n")

	forced := hermes(t, f, "", "sessions", "rewind", sid, ck, "--files", "--force")
	if forced.code != 0 || !strings.Contains(forced.out, "rewound") {
		t.Fatalf("rewind --force: %d %q %q", forced.code, forced.out, forced.err)
	}
	assertBytes(t, a, "original\n")
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Errorf("b.txt, created by the agent after the checkpoint, is still there: %v", err)
	}
	if bad := hermes(t, f, "", "sessions", "rewind", sid, ck, "--files", "--both"); bad.code != 2 {
		t.Errorf("two modes: exit %d, want 2", bad.code)
	}
}

// onlySession is the id of the fixture's one logical session (a one-shot
// session, which the stored list leaves out).
func onlySession(t *testing.T, f *gatewaytest.Fixture) string {
	t.Helper()
	db := gatewaytest.OpenDB(t, f.Home)
	var id string
	if err := db.QueryRow(`SELECT id FROM sessions WHERE parent_session_id IS NULL`).Scan(&id); err != nil {
		t.Fatalf("the session's id: %v", err)
	}
	return id
}

func assertBytes(t *testing.T, path, want string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Errorf("%s: %q, %v; want %q", filepath.Base(path), b, err, want)
	}
}
