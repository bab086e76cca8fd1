package worker

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
)

func TestFrameRoundTrip(t *testing.T) {
	t.Parallel()
	frames := []frame{
		{ID: 1, Kind: kindMessage, Message: &model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{
			{ID: "c1", Type: "function", Function: model.FunctionCall{Name: "terminal", Arguments: `{"command":"ls"}`}}}},
			Reasoning: "because"},
		{Kind: kindText, Delta: "héllo\n"},
		{Kind: kindToolStart, CallID: "c1", Name: "terminal", Args: json.RawMessage(`{"command":"ls"}`)},
		{Kind: kindToolComplete, CallID: "c1", Name: "terminal", Output: "a\nb", IsError: true},
		{ID: 2, Kind: kindApprove, Approval: &approval{Command: "rm -r x", Description: "deletes", Pattern: "rm_recursive"}},
		{ID: 3, Kind: kindAsk, Question: &question{Question: "which?", Choices: []string{"a", "b"}, MultiSelect: true}},
		{Kind: kindUI, UIKind: "ui.notify", Payload: json.RawMessage(`{"text":"hi"}`)},
		{Kind: kindStarted, PID: 42},
		{Kind: kindResult, Result: &result{Text: "t", Outcome: "completed", Rounds: 2, Usage: model.Usage{TotalTokens: 9}}},
	}
	for _, f := range frames {
		var buf bytes.Buffer
		if err := newEncoder(&buf).write(f); err != nil {
			t.Fatal(err)
		}
		line := buf.Bytes()
		if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("%s: not exactly one line: %q", f.Kind, line)
		}
		got, err := decodeFrame(line[:len(line)-1], validWorkerFrame)
		if err != nil {
			t.Fatalf("%s: %v", f.Kind, err)
		}
		if diff := cmp.Diff(f, got); diff != "" {
			t.Errorf("%s round trip (-want +got):\n%s", f.Kind, diff)
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	t.Parallel()
	worker := []string{
		`not json`, `[]`, `{"kind":"nope"}`, `{"kind":"cancel"}`, `{"kind":"answer","id":1}`,
		`{"kind":"message","message":{"role":"user","content":"x"}}`, // no id
		`{"kind":"message","id":1}`, `{"kind":"approve","id":1}`, `{"kind":"ask","id":2}`,
		`{"kind":"approve","approval":{"command":"x"}}`, `{"kind":"result"}`,
		`{"kind":"result","result":{"text":"x"}}`, `{"kind":"started"}`, `{"kind":"tool_start","name":"x"}`,
		`{"kind":"text","delta":5}`,
	}
	for _, line := range worker {
		if _, err := decodeFrame([]byte(line), validWorkerFrame); !errors.Is(err, errProtocol) {
			t.Errorf("daemon accepted %s (err %v)", line, err)
		}
	}
	daemon := []string{`{"kind":"answer"}`, `{"kind":"result","result":{"outcome":"completed"}}`, `{}`, `nul`}
	for _, line := range daemon {
		if _, err := decodeFrame([]byte(line), validDaemonFrame); !errors.Is(err, errProtocol) {
			t.Errorf("worker accepted %s (err %v)", line, err)
		}
	}
	for _, line := range []string{`{"kind":"cancel"}`, `{"kind":"answer","id":7,"allowed":true}`} {
		if _, err := decodeFrame([]byte(line), validDaemonFrame); err != nil {
			t.Errorf("worker refused %s: %v", line, err)
		}
	}
}

func TestLineReader(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 200<<10) // several bufio buffers
	lr := newLineReader(strings.NewReader("a\n"+big+"\n\nlast"), 300<<10)
	for _, want := range []string{"a", big, "", "last"} {
		got, err := lr.next()
		if err != nil || string(got) != want {
			t.Fatalf("line %.10q…: got %d bytes, err %v", want, len(got), err)
		}
	}
	if _, err := lr.next(); err != io.EOF {
		t.Fatalf("after the last line: %v, want EOF", err)
	}
	lr = newLineReader(strings.NewReader(big+"\n"), 100<<10)
	if _, err := lr.next(); !errors.Is(err, errProtocol) {
		t.Fatalf("over-long line: %v, want a protocol error", err)
	}
}

func TestResultWire(t *testing.T) {
	t.Parallel()
	in := agent.Result{Text: "t", Outcome: agent.OutcomeFailed, Err: errors.New("model down"), Rounds: 3,
		Usage: model.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3}, MaxTurnsReached: true}
	out := fromWire(toWire(in))
	if out.Err == nil || out.Err.Error() != "model down" {
		t.Fatalf("err %v", out.Err)
	}
	in.Err, out.Err = nil, nil
	if diff := cmp.Diff(in, out); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if r := fromWire(toWire(agent.Result{Outcome: agent.OutcomeCompleted})); r.Err != nil {
		t.Fatalf("completed result got an error %v", r.Err)
	}
}

func TestRawPayload(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   any
		want string
	}{
		{json.RawMessage(`{"a":1}`), `{"a":1}`},
		{map[string]string{"path": "x"}, `{"path":"x"}`},
		// invalid raw JSON is never embedded: the frame stays one valid line
		{json.RawMessage(`{bad`), `{"error":"unencodable ui payload: json: error calling MarshalJSON for type json.RawMessage: invalid character 'b' looking for beginning of object key string"}`},
		{func() {}, `{"error":"unencodable ui payload: json: unsupported type: func()"}`},
	} {
		if got := string(rawPayload(tc.in)); got != tc.want {
			t.Errorf("rawPayload(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestSpecLogValueRedactsKey(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s := Spec{BaseURL: "http://x/v1", APIKey: "sk-super-secret", Model: "m", Input: "private words",
		History: []model.Message{{Role: "user", Content: "older private words"}}}
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("turn", "spec", s)
	out := buf.String()
	if strings.Contains(out, "sk-super-secret") || strings.Contains(out, "private words") || !strings.Contains(out, `"api_key_set":true`) {
		t.Fatalf("log line %s", out)
	}
}

func FuzzDecodeFrame(f *testing.F) {
	for _, s := range []string{`{"kind":"text","delta":"x"}`, `{"id":1,"kind":"message","message":{"role":"user","content":"x"}}`,
		`{"kind":"result","result":{"outcome":"completed"}}`, `{"kind":"ui","ui_kind":"k","payload":[1]}`, `{"kind":"cancel"}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, valid := range []func(*frame) error{validWorkerFrame, validDaemonFrame} {
			fr, err := decodeFrame(line, valid)
			if err != nil {
				if !errors.Is(err, errProtocol) {
					t.Fatalf("error %v is not a protocol error", err)
				}
				continue
			}
			var buf bytes.Buffer
			if err := newEncoder(&buf).write(fr); err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			if _, err := decodeFrame(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), valid); err != nil {
				t.Fatalf("re-encoded frame %s refused: %v", buf.Bytes(), err)
			}
		}
	})
}
