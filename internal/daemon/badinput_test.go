package daemon

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// rowCounts reads the table sizes a malformed request must not change.
func rowCounts(t *testing.T, home string) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(home, "state.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string]int{}
	for _, table := range []string{"sessions", "session_admissions", "state_meta", "gateway_routing", "session_events", "messages"} {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		out[table] = n
	}
	return out
}

// Every malformed request gets its documented error and writes nothing.
func TestBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	cwd := t.TempDir()
	c := d.connect()
	snap, err := c.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("base"), Cwd: &cwd})
	if err != nil {
		t.Fatal(err)
	}
	sid := snap.SessionID
	cases := []struct {
		method, params, want string
	}{
		{"session.create", `{"source":"telegram"}`, "invalid_params"},
		{"session.create", `{"source":"cron"}`, "invalid_params"},
		{"session.create", `{"internal":true}`, "invalid_params"},
		{"session.create", `{"profile":"foreign"}`, "invalid_params"},
		{"session.create", `{"cwd":"relative"}`, "invalid_params"},
		{"session.create", `{"checkpoints":"yes"}`, "invalid_params"},
		{"session.create", `{"provider":12}`, "invalid_params"},
		{"session.create", `{"toolsets":["desktop_ui"],"source":"cli"}`, "invalid_params"},
		{"session.create", `{"toolsets":["nope"]}`, "invalid_params"},
		{"session.create", `{"max_turns":true}`, "invalid_params"},
		{"session.create", `{"reasoning":"garbage"}`, "invalid_params"},
		{"session.create", `{"base_url":"http://user:pw@host/v1"}`, "invalid_params"},
		{"session.create", `{"Source":"cli"}`, "invalid_params"},
		{"session.create", `{"source":"cli","source":"tui"}`, "invalid_params"},
		{"session.create", `{"request_id":"base","cwd":"` + cwd + `","model":"other"}`, "invalid_params"},
		{"session.create", `[1]`, "invalid_params"},
		{"session.resume", `{"session_id":"local-nope"}`, "not_found"},
		{"session.resume", `{}`, "invalid_params"},
		{"session.info", `{"session_id":"` + sid + `","x":1}`, "invalid_params"},
		{"prompt.submit", `{"session_id":"` + sid + `","submission_id":"s","text":"t","local_operator_v1":{}}`, "invalid_params"},
		{"prompt.submit", `{"session_id":"` + sid + `","text":"t"}`, "invalid_params"},
		{"prompt.submit", `{"session_id":"` + sid + `","submission_id":"","text":"t"}`, "invalid_params"},
		{"prompt.submit", `{"session_id":"` + sid + `","submission_id":"s","input_id":"t","text":"t"}`, "invalid_params"},
		{"prompt.submit", `{"session_id":"` + sid + `","submission_id":"s","text":5}`, "invalid_params"},
		{"approval.respond", `{"session_id":"` + sid + `","execution_generation":1,"prompt_id":"p","choice":"once","extra":1}`, "invalid_params"},
		{"approval.respond", `{"session_id":"` + sid + `","execution_generation":7,"prompt_id":"p","choice":"once"}`, "stale_generation"},
		{"session.mutate", `{"session_id":"` + sid + `","request_id":"m","expected_revision":0,"operation":"explode","payload":{}}`, "invalid_params"},
		{"session.interrupt", `{"session_id":"` + sid + `","execution_generation":-1}`, "stale_generation"},
		{"ping", `{"x":1}`, "invalid_params"},
		{"no.such.method", `{}`, "unknown_method"},
	}
	before := rowCounts(t, d.home)
	for _, tc := range cases {
		err := c.Call(ctx, tc.method, json.RawMessage(tc.params), nil)
		if got := reason(err); got != tc.want {
			t.Errorf("%s %s: got %q, want %s", tc.method, tc.params, got, tc.want)
		}
	}
	after := rowCounts(t, d.home)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s: %d rows before, %d after malformed requests", k, v, after[k])
		}
	}
}

// A second viewer that never attached cannot submit; a foreign principal is
// refused; describe leaks no path.
func TestSubmitNeedsAttachAndDescribeHasNoPaths(t *testing.T) {
	t.Parallel()
	d := startTest(t, "")
	ctx := ctxT(t)
	cwd := t.TempDir()
	a := d.connect()
	snap, err := a.CreateSession(ctx, protocol.SessionCreateParams{RequestID: ptr("att"), Cwd: &cwd})
	if err != nil {
		t.Fatal(err)
	}
	b := d.connect()
	_, err = b.Submit(ctx, protocol.PromptSubmitParams{SessionID: snap.SessionID, SubmissionID: ptr("x"), Text: "t"})
	if reason(err) != "permission_denied" {
		t.Fatalf("submit without resume: %v", err)
	}
	desc, err := b.Describe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(desc)
	if strings.Contains(string(raw), d.home) || len(desc.SessionCreate.Parameters) != len(protocol.CreateParameterNames) {
		t.Fatalf("describe: %s", raw)
	}
	if err := b.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}
