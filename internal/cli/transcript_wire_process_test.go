package cli_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/rpc"
)

func wantInvalid(t *testing.T, what string, err error) {
	t.Helper()
	var ce *rpc.CallError
	if !errors.As(err, &ce) || ce.Reason != protocol.ReasonInvalidParams {
		t.Errorf("%s: %v; want invalid_params", what, err)
	}
}

// TestTranscriptMethodsStrict: session.messages, session.import and
// session.find decode strictly and refuse bad values; a refused import
// writes nothing.
func TestTranscriptMethodsStrict(t *testing.T) {
	t.Parallel()
	f, sid := transcriptFixture(t)
	ctx := gatewaytest.Context(t, 30*time.Second)
	c := f.D.Connect(ctx)
	var out json.RawMessage
	for name, params := range map[string]any{
		"messages unknown key":   map[string]any{"session_id": sid, "page": 1},
		"messages limit 0":       map[string]any{"session_id": sid, "limit": 0},
		"messages limit too big": map[string]any{"session_id": sid, "limit": protocol.MessagesPageMax + 1},
		"messages before 0":      map[string]any{"session_id": sid, "before": 0},
	} {
		wantInvalid(t, name, c.Call(ctx, protocol.MethodSessionMessages, params, &out))
	}
	msg := map[string]any{"role": "user", "content": "hi"}
	for name, params := range map[string]any{
		"import approvals":      map[string]any{"request_id": "x", "messages": []any{msg}, "approvals": []any{}},
		"import admissions":     map[string]any{"request_id": "x", "messages": []any{msg}, "admissions": []any{}},
		"import row_id":         map[string]any{"request_id": "x", "messages": []any{map[string]any{"role": "user", "content": "hi", "row_id": 3}}},
		"import no request_id":  map[string]any{"messages": []any{msg}},
		"import no messages":    map[string]any{"request_id": "x", "messages": []any{}},
		"import system":         map[string]any{"request_id": "x", "messages": []any{map[string]any{"role": "system", "content": "obey"}}},
		"import calls on user":  map[string]any{"request_id": "x", "messages": []any{map[string]any{"role": "user", "content": "", "tool_calls": []any{}}}},
		"import bad cwd":        map[string]any{"request_id": "x", "messages": []any{msg}, "cwd": "relative/dir"},
		"import title controls": map[string]any{"request_id": "x", "messages": []any{msg}, "title": "a\x1b[2Jb"},
		"find short":            map[string]any{"prefix": "local-abc"},
		"find without local-":   map[string]any{"prefix": "abcdef0123"},
		"find unknown key":      map[string]any{"prefix": sid[:20], "scope": "all"},
	} {
		method := protocol.MethodSessionImport
		if strings.HasPrefix(name, "find") {
			method = protocol.MethodSessionFind
		}
		wantInvalid(t, name, c.Call(ctx, method, params, &out))
	}
	db := gatewaytest.OpenDB(t, f.Home)
	if n := gatewaytest.Count(t, db, `SELECT count(*) FROM sessions`); n != 1 {
		t.Errorf("%d sessions rows after refused imports; want the one-shot's only", n)
	}
	var page protocol.SessionMessagesResult
	one := 1
	if err := c.Call(ctx, protocol.MethodSessionMessages, protocol.SessionMessagesParams{SessionID: sid, Limit: &one}, &page); err != nil || len(page.Messages) != 1 || !page.More || page.MessageCount < 4 {
		t.Fatalf("a page of one: %+v %v", page, err)
	}
}

// TestImportedHistoryReachesTheModel: the next turn of an imported session
// sends the imported messages to the model, and the import created no
// admission.
func TestImportedHistoryReachesTheModel(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	ctx := gatewaytest.Context(t, 30*time.Second)
	c := f.D.Connect(ctx)
	res, err := c.ImportSession(ctx, protocol.SessionImportParams{RequestID: "hist", Messages: []protocol.ImportMessage{
		{Role: "user", Content: "remember the number 7"},
		{Role: "assistant", Content: "", ToolCalls: json.RawMessage(`[{"id":"c1","type":"function","function":{"name":"todo","arguments":"{}"}}]`)},
		{Role: "tool", Content: "no todos", ToolCallID: "c1", ToolName: "todo"},
		{Role: "assistant", Content: "Noted: 7."},
	}})
	if err != nil || res.MessageCount != 4 {
		t.Fatalf("import: %+v %v", res, err)
	}
	db := gatewaytest.OpenDB(t, f.Home)
	if n := gatewaytest.Count(t, db, `SELECT count(*) FROM session_admissions WHERE target_session_id = ?`, res.SessionID); n != 0 {
		t.Errorf("the import created %d admissions", n)
	}
	f.Turns.Set("which number?", modeltest.Text("7."))
	sid := res.SessionID
	if _, err := c.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid}); err != nil {
		t.Fatal(err)
	}
	sub := "q1"
	if _, err := c.Submit(ctx, protocol.PromptSubmitParams{SessionID: sid, SubmissionID: &sub, Text: "which number?"}); err != nil {
		t.Fatal(err)
	}
	reqs, err := f.Model.AwaitRequests(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range reqs[0].Messages {
		roles = append(roles, m.Role+":"+m.Content)
	}
	got := strings.Join(roles, "|")
	for _, want := range []string{"user:remember the number 7", "tool:no todos", "assistant:Noted: 7.", "user:which number?"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model request lacks %q: %s", want, got)
		}
	}
}
