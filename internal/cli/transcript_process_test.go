package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
)

// transcriptFixture is a daemon with one finished one-shot session: a tool
// call, its result and an answer holding an escape sequence.
func transcriptFixture(t *testing.T) (*gatewaytest.Fixture, string) {
	t.Helper()
	f := streaming(t)
	f.Start()
	call := modeltest.ToolCall("terminal", gatewaytest.TerminalArgs("printf 'alpha\\nbeta\\n'"))
	call.Text = "Let me look."
	f.Turns.Set("look", call, modeltest.Text("Saw \x1b[31mtwo\x1b[0m lines."))
	if r := hermes(t, f, "", "chat", "-z", "look", "--yolo", "--cwd", t.TempDir(), "--request-id", "shown"); r.code != 0 {
		t.Fatalf("chat: %d %q", r.code, r.err)
	}
	r := hermes(t, f, "", "sessions", "list", "--json")
	var res protocol.SessionListResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil || len(res.Sessions) != 1 {
		t.Fatalf("list: %v %q", err, r.out)
	}
	return f, res.Sessions[0].SessionID
}

func TestSessionsShowFoldsAndEscapes(t *testing.T) {
	t.Parallel()
	f, sid := transcriptFixture(t)
	short := sid[:len("local-")+8]
	r := hermes(t, f, "", "sessions", "show", short)
	if r.code != 0 {
		t.Fatalf("show %s: %d %q", short, r.code, r.err)
	}
	for _, want := range []string{sid, "── you", "look", "Let me look.", "→ terminal: printf", "← terminal:", `Saw \x1b[31mtwo\x1b[0m lines.`} {
		if !strings.Contains(r.out, want) {
			t.Errorf("show lacks %q:\n%s", want, r.out)
		}
	}
	if strings.Contains(r.out, "\x1b") || strings.Count(r.out, "beta") != 1 { // only in the command
		t.Errorf("show: a raw escape, or the tool result not folded:\n%s", r.out)
	}
	full := hermes(t, f, "", "sessions", "show", sid[len("local-"):len("local-")+10], "--full")
	if full.code != 0 || strings.Count(full.out, "beta") < 2 || strings.Contains(full.out, "\x1b") {
		t.Errorf("show --full (prefix without local-): %d %q %q", full.code, full.out, full.err)
	}
	md := hermes(t, f, "", "sessions", "show", sid, "--markdown")
	for _, want := range []string{"## You", "## Assistant", "- → terminal: printf"} {
		if md.code != 0 || !strings.Contains(md.out, want) {
			t.Errorf("--markdown lacks %q: %d\n%s", want, md.code, md.out)
		}
	}
	js := hermes(t, f, "", "sessions", "show", short, "--json")
	var tr protocol.Transcript
	if err := json.Unmarshal([]byte(js.out), &tr); err != nil || tr.SessionID != sid || len(tr.Messages) != tr.MessageCount || tr.MessageCount < 4 {
		t.Fatalf("--json: %v %+v", err, tr)
	}
	if strings.Contains(js.out, "\x1b") {
		t.Errorf("--json holds a raw escape")
	}
	if r := hermes(t, f, "", "sessions", "show", "local-00000000"); r.code != 1 || !strings.Contains(r.err, "no session id starts with") {
		t.Errorf("unknown prefix: %d %q", r.code, r.err)
	}
}

func TestSessionsExportImport(t *testing.T) {
	t.Parallel()
	f, sid := transcriptFixture(t)
	exp := hermes(t, f, "", "sessions", "export", sid)
	if exp.code != 0 {
		t.Fatalf("export: %d %q", exp.code, exp.err)
	}
	file := filepath.Join(t.TempDir(), "chat.json")
	if err := os.WriteFile(file, []byte(exp.out), 0o600); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	imp := hermes(t, f, "", "sessions", "import", file, "--cwd", cwd, "--title", "imported chat", "--request-id", "imp-1")
	m := regexp.MustCompile(`imported (\d+) messages as (local-[0-9a-f]+)`).FindStringSubmatch(imp.out)
	if imp.code != 0 || m == nil {
		t.Fatalf("import: %d %q %q", imp.code, imp.out, imp.err)
	}
	newID := m[2]
	var orig, copied protocol.Transcript
	_ = json.Unmarshal([]byte(exp.out), &orig)
	if err := json.Unmarshal([]byte(hermes(t, f, "", "sessions", "export", newID).out), &copied); err != nil {
		t.Fatal(err)
	}
	if copied.Title != "imported chat" || copied.Source != "cli" || copied.Cwd != cwd || len(copied.Messages) != len(orig.Messages) {
		t.Fatalf("imported session: %+v", copied)
	}
	for i := range orig.Messages {
		o, c := orig.Messages[i], copied.Messages[i]
		if o.Role != c.Role || o.Content != c.Content || o.ToolCallID != c.ToolCallID || string(o.ToolCalls) != string(c.ToolCalls) || o.Timestamp != c.Timestamp {
			t.Errorf("message %d: %+v, imported as %+v", i, o, c)
		}
	}
	// The same request again is the same session; other params are refused.
	if again := hermes(t, f, "", "sessions", "import", file, "--cwd", cwd, "--title", "imported chat", "--request-id", "imp-1"); again.code != 0 || !strings.Contains(again.out, newID) {
		t.Errorf("repeat: %d %q %q", again.code, again.out, again.err)
	}
	if other := hermes(t, f, "", "sessions", "import", file, "--cwd", cwd, "--request-id", "imp-1"); other.code != 2 {
		t.Errorf("same request_id, other title: %d %q", other.code, other.err)
	}
	// A request_id of session.create cannot be taken over.
	if r := hermes(t, f, "", "sessions", "import", file, "--request-id", "shown"); r.code != 2 {
		t.Errorf("request_id of a created session: %d %q", r.code, r.err)
	}
}

// TestSessionsImportRefusesBadInput: nothing is written for a bad file.
func TestSessionsImportRefusesBadInput(t *testing.T) {
	t.Parallel()
	f, _ := transcriptFixture(t)
	before := hermes(t, f, "", "sessions", "list", "--stored", "--json").out
	dir := t.TempDir()
	for name, body := range map[string]string{
		"tool-without-id": `{"format":"hermes-transcript-v1","messages":[{"row_id":1,"role":"user","content":"a"},{"row_id":2,"role":"tool","content":"x"}]}`,
		"bad-calls":       `{"format":"hermes-transcript-v1","messages":[{"row_id":1,"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"t","arguments":"{}"},"extra":1}]}]}`,
		"bad-role":        `{"format":"hermes-transcript-v1","messages":[{"row_id":1,"role":"robot","content":"a"}]}`,
		"bad-time":        `{"format":"hermes-transcript-v1","messages":[{"row_id":1,"role":"user","content":"a","timestamp":"yesterday"}]}`,
		"unknown-field":   `{"format":"hermes-transcript-v1","messages":[],"approvals":[]}`,
		"wrong-format":    `{"format":"other","messages":[{"row_id":1,"role":"user","content":"a"}]}`,
		"empty":           `{"format":"hermes-transcript-v1","messages":[]}`,
	} {
		file := filepath.Join(dir, name+".json")
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := hermes(t, f, "", "sessions", "import", file); r.code != 2 || r.err == "" {
			t.Errorf("%s: code %d, stderr %q; want 2 and a message", name, r.code, r.err)
		}
	}
	if after := hermes(t, f, "", "sessions", "list", "--stored", "--json").out; after != before {
		t.Errorf("a refused import wrote a session:\nbefore %s\nafter %s", before, after)
	}
}

// TestSessionPrefixAmbiguous imports two sessions whose ids share their
// first 8 hex digits (request ids found by a birthday search) and asks for
// that prefix.
func TestSessionPrefixAmbiguous(t *testing.T) {
	t.Parallel()
	f, sid := transcriptFixture(t)
	var info protocol.SessionInfo
	if err := json.Unmarshal([]byte(hermes(t, f, "", "sessions", "info", sid, "--json").out), &info); err != nil {
		t.Fatal(err)
	}
	subject := fmt.Sprintf("uid:%d", os.Getuid())
	seen := map[string]string{}
	var a, b, prefix string
	for i := 0; a == ""; i++ {
		req := fmt.Sprintf("twin-%d", i)
		id := session.LogicalID(info.ProfileID, subject, req)
		p := id[:len("local-")+8]
		if other, ok := seen[p]; ok {
			a, b, prefix = other, req, p
		}
		seen[p] = req
	}
	file := filepath.Join(t.TempDir(), "one.json")
	body := `{"format":"hermes-transcript-v1","messages":[{"row_id":1,"role":"user","content":"twin"}]}`
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, req := range []string{a, b} {
		if r := hermes(t, f, "", "sessions", "import", file, "--request-id", req); r.code != 0 {
			t.Fatalf("import %s: %d %q", req, r.code, r.err)
		}
	}
	r := hermes(t, f, "", "sessions", "info", prefix)
	if r.code != 2 || !strings.Contains(r.err, "ambiguous") || strings.Count(r.err, prefix) < 3 {
		t.Fatalf("ambiguous prefix: %d %q", r.code, r.err)
	}
	long := session.LogicalID(info.ProfileID, subject, a)[:len(prefix)+8]
	if r := hermes(t, f, "", "sessions", "info", long); r.code != 0 {
		t.Fatalf("a longer prefix: %d %q", r.code, r.err)
	}
}
