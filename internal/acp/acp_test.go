package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// serve runs Serve on the given input lines and returns its output lines.
func serve(t *testing.T, lines ...string) []map[string]any {
	t.Helper()
	var out strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), Options{}, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out)
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var msgs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("output line %q: %v", sc.Text(), err)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func byID(msgs []map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, m := range msgs {
		b, _ := json.Marshal(m["id"])
		out[string(b)] = m
	}
	return out
}

func TestServeWithoutGateway(t *testing.T) {
	t.Parallel()
	msgs := byID(serve(t,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"nope"}`,
		`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`,
		`not json`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
	))
	init := msgs["1"]["result"].(map[string]any)
	if init["protocolVersion"] != float64(1) || init["agentCapabilities"].(map[string]any)["loadSession"] != true {
		t.Errorf("initialize: %v", init)
	}
	for id, code := range map[string]float64{"2": codeNoMethod, "3": codeInternal, "4": codeInvalidParams, "null": codeParse} {
		e, ok := msgs[id]["error"].(map[string]any)
		if !ok || e["code"] != code {
			t.Errorf("reply %s: %v, want error code %v", id, msgs[id], code)
		}
	}
}

func TestUpdates(t *testing.T) {
	t.Parallel()
	ev := func(typ string, p any) protocol.Event {
		b, _ := json.Marshal(p)
		return protocol.Event{Type: typ, Payload: b}
	}
	got := update(ev(protocol.EventMessageDelta, protocol.DeltaPayload{Text: "hi"}))
	if d := cmp.Diff([]map[string]any{chunk("agent_message_chunk", "hi")}, got); d != "" {
		t.Error(d)
	}
	got = update(ev(protocol.EventToolStart, protocol.ToolStartPayload{ToolID: "c1", Name: "terminal", Args: json.RawMessage(`{"command":"ls  -la"}`)}))
	if got[0]["title"] != "terminal: ls -la" || got[0]["kind"] != "execute" || got[0]["status"] != "in_progress" {
		t.Errorf("tool_call: %v", got)
	}
	got = update(ev(protocol.EventToolComplete, protocol.ToolCompletePayload{ToolID: "c2", Name: "todo",
		Result: `{"todos":[{"id":"1","content":"a","status":"completed"},{"id":"2","content":"b","status":"weird"}]}`}))
	if len(got) != 2 || got[1]["sessionUpdate"] != "plan" {
		t.Fatalf("todo: %v", got)
	}
	want := []map[string]string{{"content": "a", "priority": "medium", "status": "completed"}, {"content": "b", "priority": "medium", "status": "pending"}}
	if d := cmp.Diff(want, got[1]["entries"]); d != "" {
		t.Error(d)
	}
}

func TestHistoryAndPromptText(t *testing.T) {
	t.Parallel()
	calls := `[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.go\"}"}}]`
	h := history([]protocol.Message{
		{Role: "user", Content: "q"}, {Role: "assistant", Content: "", ToolCalls: json.RawMessage(calls)},
		{Role: "tool", ToolCallID: "c1", Content: "body"}, {Role: "assistant", Content: "a"},
	})
	var kinds []string
	for _, u := range h {
		kinds = append(kinds, u["sessionUpdate"].(string))
	}
	if d := cmp.Diff([]string{"user_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"}, kinds); d != "" {
		t.Error(d)
	}
	text := promptText([]json.RawMessage{
		json.RawMessage(`{"type":"text","text":"fix"}`),
		json.RawMessage(`{"type":"resource_link","uri":"file:///a.go","name":"a.go"}`),
		json.RawMessage(`{"type":"image","data":"x","mimeType":"image/png"}`),
	})
	if text != "fix\n@file:///a.go" {
		t.Errorf("prompt text %q", text)
	}
}

func TestStopReason(t *testing.T) {
	t.Parallel()
	for outcome, want := range map[string]string{"completed": "end_turn", "interrupted": "cancelled", "cancelled": "cancelled", "rejected": "refusal"} {
		res, err := stopReason(turnEnd{outcome: outcome})
		if err != nil || res.(map[string]string)["stopReason"] != want {
			t.Errorf("%s: %v %v", outcome, res, err)
		}
	}
	if _, err := stopReason(turnEnd{outcome: "failed", detail: "model down"}); err == nil || !strings.Contains(err.Message, "model down") {
		t.Errorf("failed: %v", err)
	}
}

// TestPermissionTitleEscaped (issue 10 item 5): the title an editor shows
// for an approval, and a tool call's title and output, carry no raw
// control or bidi characters.
func TestPermissionTitleEscaped(t *testing.T) {
	t.Parallel()
	req := approvalRequest("s1", "c1", protocol.ApprovalRequestPayload{Command: "rm -rf ~\x1b[2K\recho ok\u202e", Choices: protocol.ApprovalChoices})
	call := req["toolCall"].(map[string]any)
	if got := call["title"]; got != `rm -rf ~\x1b[2K\recho ok\u202e` {
		t.Errorf("permission title %q", got)
	}
	if raw := call["rawInput"].(map[string]string); raw["command"] != "rm -rf ~\x1b[2K\recho ok\u202e" {
		t.Errorf("rawInput changed: %q", raw["command"])
	}
	ev := func(typ string, p any) protocol.Event {
		b, _ := json.Marshal(p)
		return protocol.Event{Type: typ, Payload: b}
	}
	got := update(ev(protocol.EventToolStart, protocol.ToolStartPayload{ToolID: "c1", Name: "terminal", Args: json.RawMessage(`{"command":"cat x\u001b]0;t\u0007"}`)}))
	if got[0]["title"] != `terminal: cat x\x1b]0;t\x07` {
		t.Errorf("tool_call title %q", got[0]["title"])
	}
	got = update(ev(protocol.EventToolComplete, protocol.ToolCompletePayload{ToolID: "c1", Name: "terminal", Result: "a\x1b[31m\nb"}))
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), `\u001b`) || !strings.Contains(string(b), `a\\x1b[31m\nb`) {
		t.Errorf("tool output: %s", b)
	}
}
