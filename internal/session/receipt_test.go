package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// built creates a valid receipt for tests.
func built(t *testing.T, e env, in string) Launch {
	t.Helper()
	l, err := Build(params(t, e.expand(in)), "uid:1000", e.d, now)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestBuildReceiptGolden(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	l := built(t, e, `{"request_id":"desk-42","source":"gui","cwd":"{plain}","model":"gpt-x","toolsets":[],"api_key":"sk-secret"}`)
	id := LogicalID("prof-1", "uid:1000", "desk-42")
	route := "agent:main:local:dm:" + id
	ref := "launch:746b4ad1ca9129e1"
	want := Receipt{
		ProfileID: "prof-1", PrincipalID: "uid:1000", RequestID: "desk-42", SessionID: id, Route: route,
		Entry: Entry{
			SessionKey: route, SessionID: id, CreatedAt: "2025-01-01T10:00:00.000000", UpdatedAt: "2025-01-01T10:00:00.000000",
			Origin: Origin{Platform: "local", ChatID: id, UserID: "uid:1000", ChatType: "dm"}, Platform: "local",
		},
		Policy: Policy{
			Source: "gui", Platform: "desktop", Cwd: e.plain, Model: "gpt-x", Toolsets: []string{},
			Provider: "custom", BaseURL: "http://127.0.0.1:11434/v1", MaxTurns: 90, Streaming: true,
			ConfigJSON:    `{"model":{"api_key_env":"OPENAI_API_KEY","default":"gpt-default"}}`,
			RequestJSON:   `{"cwd":"` + e.plain + `","model":"gpt-x","source":"gui","toolsets":[]}`,
			TerminalJSON:  `{"TERMINAL_CWD":"` + e.plain + `"}`,
			CredentialRef: &ref,
			KeyEndpoint:   KeyEndpointModel,
		},
	}
	if diff := cmp.Diff(want, l.Receipt); diff != "" {
		t.Fatalf("receipt (-want +got):\n%s", diff)
	}
	if l.APIKey != "sk-secret" || l.RequestID != "desk-42" || l.RequestJSON != want.Policy.RequestJSON {
		t.Fatalf("launch %q %q %q", l.APIKey, l.RequestID, l.RequestJSON)
	}
	raw, err := l.Receipt.Marshal()
	if err != nil || strings.Contains(raw, "sk-secret") || strings.Contains(raw, "api_key\"") {
		t.Fatalf("stored receipt leaks the key or fails: %v %s", err, raw)
	}
	if err := l.Receipt.Check("prof-1", id); err != nil {
		t.Fatal(err)
	}
}

func TestBuildRandomRequestID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := built(t, e, `{}`), built(t, e, `{}`)
	if len(a.RequestID) != 32 || a.RequestID == b.RequestID || a.Receipt.SessionID == b.Receipt.SessionID ||
		a.Receipt.SessionID != LogicalID("prof-1", "uid:1000", a.RequestID) || a.RequestJSON != b.RequestJSON {
		t.Fatalf("%+v / %+v", a.Receipt, b.Receipt)
	}
}

func TestReceiptRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, in := range []string{
		`{"request_id":"a"}`,
		`{"request_id":"b","source":"acp","editor":{"name":"zed"},"api_key":"k","skills":["review"],"title":"T","hidden":true}`,
		`{"request_id":"c","safe_mode":true,"model":"m","yolo":true,"cwd":"{ws}"}`,
	} {
		r := built(t, e, in).Receipt
		r = r.Advance("child-1", now.Add(1))
		raw, err := r.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseReceipt(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
		if err := got.Check("prof-1", r.SessionID); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
	}
}

func TestParseReceiptRejects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	raw, err := built(t, e, `{"request_id":"r"}`).Receipt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	sub := func(m map[string]any, k string) map[string]any { return m[k].(map[string]any) }
	tests := []struct{ name, in string }{
		{"empty", ``},
		{"empty object", `{}`},
		{"null", `null`},
		{"array", `[]`},
		{"truncated", raw[:len(raw)/2]},
		{"trailing garbage", raw + `x`},
		{"missing route", edit(func(m map[string]any) { delete(m, "route") })},
		{"null policy", edit(func(m map[string]any) { m["policy"] = nil })},
		{"entry not an object", edit(func(m map[string]any) { m["entry"] = "x" })},
		{"missing origin", edit(func(m map[string]any) { delete(sub(m, "entry"), "origin") })},
		{"missing origin chat_type", edit(func(m map[string]any) { delete(sub(sub(m, "entry"), "origin"), "chat_type") })},
		{"missing policy cwd", edit(func(m map[string]any) { delete(sub(m, "policy"), "cwd") })},
		{"null toolsets", edit(func(m map[string]any) { sub(m, "policy")["toolsets"] = nil })},
		{"missing credential_ref", edit(func(m map[string]any) { delete(sub(m, "policy"), "credential_ref") })},
		{"string bool", edit(func(m map[string]any) { sub(m, "policy")["yolo"] = "false" })},
		{"fraction max_turns", edit(func(m map[string]any) { sub(m, "policy")["max_turns"] = 1.5 })},
		{"toolsets not strings", edit(func(m map[string]any) { sub(m, "policy")["toolsets"] = []any{1} })},
		{"unknown key", edit(func(m map[string]any) { m["extra"] = 1 })},
		{"unknown policy key", edit(func(m map[string]any) { sub(m, "policy")["api_key"] = "k" })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseReceipt(tt.in)
			wantErr(t, err, protocol.ReasonStorageUnavailable, "receipt")
		})
	}
}
