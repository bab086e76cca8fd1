package policy

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestTitlesRefuseBidi (issue 10 item 5): a title with U+202E (or another
// control) is invalid_params at session.create and at session.mutate
// rename, and nothing of it is stored.
func TestTitlesRefuseBidi(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{NoCompression: true})
	d := f.Start()
	ctx := gt.Context(t, wait)
	v := d.View(ctx)
	cwd := gt.Cwd(t)
	bad := []string{"invoice\u202etxt.exe", "report\x1b[2K\rok", "safe\u2067title"}
	for i, title := range bad {
		_, err := v.CreateSession(ctx, protocol.SessionCreateParams{RequestID: gt.Ptr("bad" + string(rune('a'+i))), Cwd: &cwd, Title: gt.Ptr(title)})
		if gt.Reason(err) != protocol.ReasonInvalidParams {
			t.Errorf("session.create title %q: %v, want invalid_params", title, err)
		}
	}
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("good"), Cwd: &cwd, Title: gt.Ptr("Plain title")})
	for i, title := range bad {
		payload, _ := json.Marshal(map[string]string{"title": title})
		_, err := v.MutateSession(ctx, protocol.SessionMutateParams{SessionID: snap.SessionID, RequestID: "rename" + string(rune('a'+i)),
			ExpectedRevision: snap.Revision, Operation: "rename", Payload: payload})
		if gt.Reason(err) != protocol.ReasonInvalidParams {
			t.Errorf("rename to %q: %v, want invalid_params", title, err)
		}
	}
	if code := d.Stop(); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	db := gt.OpenDB(t, f.Home)
	if n := gt.Count(t, db, `SELECT count(*) FROM sessions`); n != 1 {
		t.Errorf("%d sessions stored, want 1", n)
	}
	var title sql.NullString
	if err := db.QueryRow(`SELECT title FROM sessions WHERE id = ?`, snap.SessionID).Scan(&title); err != nil {
		t.Fatal(err)
	}
	if title.String != "Plain title" {
		t.Errorf("stored title %q, want the plain one", title.String)
	}
	if n := gt.Count(t, db, `SELECT count(*) FROM session_mutations`); n != 0 {
		t.Errorf("%d session_mutations stored for refused renames", n)
	}
	for _, b := range bad {
		if n := gt.Count(t, db, `SELECT count(*) FROM sessions WHERE title = ?`, b); n != 0 {
			t.Errorf("title %q stored", b)
		}
	}
}

// TestOneshotWithoutTerminalShowsNoRawControls (issue 10 item 5): `hermes
// chat -q` without a terminal denies an approval at once and names the
// command on stderr; neither stdout nor stderr carries a raw ESC, CR or
// bidi override, whether the spoof is in a terminal command or in the path
// of a file tool's prompt. (The terminal case on a tty is
// internal/cli/visible_process_test.go.)
func TestOneshotWithoutTerminalShowsNoRawControls(t *testing.T) {
	t.Parallel()
	f := gt.NewFixture(t, gt.Config{Streaming: true, NoCompression: true})
	cwd := gt.Cwd(t)
	victim := filepath.Join(cwd, "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	outside := gt.Cwd(t)
	spoofName := "a\x1b[2K\rinnocent\u202etxt.exe"
	gt.WriteFile(t, filepath.Join(outside, spoofName), "outside\n")
	spoof := " #\x1b[2K\r\x1b[1Aecho harmless\u202e"
	f.Turns.Set("spoof",
		modeltest.ToolCall("terminal", toolArgs(map[string]string{"command": "rm -r -- " + victim + spoof})),
		modeltest.ToolCall("read_file", toolArgs(map[string]string{"path": filepath.Join(outside, spoofName)})),
		modeltest.Text("all done"))
	f.Start()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cmd := exec.CommandContext(ctx, f.Bin, "--home", f.Home, "chat", "-q", "spoof", "--cwd", cwd)
	cmd.Env = gt.CleanEnv()
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	out, serr := stdout.String(), stderr.String()
	if !strings.Contains(out, "all done") {
		t.Fatalf("the turn did not finish: code %v, stdout %q, stderr %q", err, out, serr)
	}
	for name, s := range map[string]string{"stdout": out, "stderr": serr} {
		for _, raw := range []string{"\x1b", "\r", "\u202e"} {
			if strings.Contains(s, raw) {
				t.Errorf("%s holds a raw %q: %q", name, raw, s)
			}
		}
	}
	if !strings.Contains(serr, "rm -r -- "+victim) || !strings.Contains(serr, "innocent") {
		t.Errorf("stderr does not name both refused requests: %q", serr)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the denied command ran: %v", err)
	}
	for _, r := range gt.RequestsFor(f.Model, "spoof") {
		if r.ContainsText("outside\n") {
			t.Error("the denied read reached the model")
		}
	}
}
