package rpc

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

type question struct {
	Question string    `json:"question"`
	Choices  *[]string `json:"choices,omitempty"`
}

type embedded struct {
	Extra *string `json:"extra,omitempty"`
}

type sample struct {
	SessionID string            `json:"session_id"`
	Limit     *int              `json:"limit,omitempty"`
	Yolo      *bool             `json:"yolo,omitempty"`
	Questions []question        `json:"questions,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
	Editor    json.RawMessage   `json:"editor,omitempty"`
	Any       any               `json:"any,omitempty"`
	Skip      string            `json:"-"`
	embedded
}

func TestDecodeParamsStrict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		detail   string // "" = success
	}{
		{"minimal", `{"session_id":"s"}`, ""},
		{"all optional", `{"session_id":"s","limit":3,"yolo":false,"questions":[{"question":"q","choices":["a"]}],"labels":{"a":"b"},"editor":{"k":1},"any":[1,{"x":2}],"extra":"e"}`, ""},
		{"optional null", `{"session_id":"s","limit":null,"editor":null,"any":null}`, ""},
		{"unknown key", `{"session_id":"s","internal":true}`, `unknown key "internal"`},
		{"json dash field", `{"session_id":"s","Skip":"x"}`, `unknown key "Skip"`},
		{"case variant", `{"Session_ID":"s"}`, `key "Session_ID" differs in case from "session_id"`},
		{"case variant embedded", `{"session_id":"s","EXTRA":"e"}`, `key "EXTRA" differs in case from "extra"`},
		{"duplicate", `{"session_id":"s","session_id":"t"}`, `duplicate key "session_id"`},
		{"duplicate nested", `{"session_id":"s","questions":[{"question":"a","question":"b"}]}`, `duplicate key "questions[0].question"`},
		{"duplicate in raw", `{"session_id":"s","editor":{"a":1,"a":2}}`, `duplicate key "editor.a"`},
		{"duplicate in map", `{"session_id":"s","labels":{"a":"1","a":"2"}}`, `duplicate key "labels.a"`},
		{"nested unknown", `{"session_id":"s","questions":[{"question":"q","x":1}]}`, `unknown key "questions[0].x"`},
		{"nested case", `{"session_id":"s","questions":[{"Question":"q"}]}`, `key "questions[0].Question" differs in case from "question"`},
		{"missing required", `{}`, `missing required key "session_id"`},
		{"missing nested required", `{"session_id":"s","questions":[{}]}`, `missing required key "questions[0].question"`},
		{"required null", `{"session_id":null}`, `key "session_id": want string, got null`},
		{"slice null", `{"session_id":"s","questions":null}`, `key "questions": want array, got null`},
		{"wrong type string", `{"session_id":1}`, `key "session_id": want string, got number`},
		{"wrong type bool", `{"session_id":"s","yolo":"yes"}`, `key "yolo": want boolean, got string`},
		{"bool for int", `{"session_id":"s","limit":true}`, `key "limit": want integer, got bool`},
		{"fraction for int", `{"session_id":"s","limit":1.5}`, `key "limit": want integer, got number 1.5`},
		{"object for string", `{"session_id":{"a":1}}`, `key "session_id": want string, got object`},
		{"nested wrong type", `{"session_id":"s","questions":[{"question":2}]}`, `key "questions.question": want string, got number`},
		{"params array", `[1]`, `params must be a JSON object`},
		{"params string", `"x"`, `params must be a JSON object`},
		{"trailing", `{"session_id":"s"} {}`, `trailing data after params`},
		{"malformed", `{"session_id":`, `malformed JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeParams[sample](json.RawMessage(tt.in))
			checkInvalid(t, err, tt.detail)
		})
	}
}

func checkInvalid(t *testing.T, err error, detail string) {
	t.Helper()
	if detail == "" {
		if err != nil {
			t.Fatalf("err = %v, want nil", err)
		}
		return
	}
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Reason != protocol.ReasonInvalidParams {
		t.Fatalf("err = %#v, want invalid_params", err)
	}
	if pe.Detail != detail {
		t.Errorf("detail = %q, want %q", pe.Detail, detail)
	}
}

func TestDecodeParamsAbsentIsEmptyObject(t *testing.T) {
	t.Parallel()
	for _, raw := range []json.RawMessage{nil, json.RawMessage(""), json.RawMessage("null"), json.RawMessage(" {} ")} {
		if _, err := DecodeParams[struct{}](raw); err != nil {
			t.Errorf("DecodeParams(%q) = %v", raw, err)
		}
		if _, err := DecodeParams[sample](raw); err == nil {
			t.Errorf("DecodeParams(%q) into a required field: want an error", raw)
		}
	}
}

func TestDecodeParamsValues(t *testing.T) {
	t.Parallel()
	got, err := DecodeParams[sample](json.RawMessage(`{"session_id":"s","limit":3,"questions":[{"question":"q"}],"editor":{"k":1},"extra":"e"}`))
	if err != nil {
		t.Fatal(err)
	}
	limit, extra := 3, "e"
	want := sample{SessionID: "s", Limit: &limit, Questions: []question{{Question: "q"}},
		Editor: json.RawMessage(`{"k":1}`), embedded: embedded{Extra: &extra}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(sample{})); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
}

func TestDecodeParamsProtocolTypes(t *testing.T) {
	t.Parallel()
	_, err := DecodeParams[protocol.SessionCreateParams](json.RawMessage(`{"source":"cli","yolo":true,"max_turns":"none","editor":null}`))
	checkInvalid(t, err, "")
	_, err = DecodeParams[protocol.SessionCreateParams](json.RawMessage(`{"checkpoints":"yes"}`))
	checkInvalid(t, err, `key "checkpoints": want boolean, got string`)
	_, err = DecodeParams[protocol.SessionCreateParams](json.RawMessage(`{"internal":1}`))
	checkInvalid(t, err, `unknown key "internal"`)
}

func FuzzDecodeParams(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `[]`, `{"session_id":"s"}`, `{"session_id":"s","session_id":"s"}`,
		`{"Session_id":"s"}`, `{"session_id":"s","questions":[{"question":"q","choices":["a","b"]}]}`,
		`{"session_id":"s","labels":{"a":"b"},"editor":{"x":[1,2,{"y":null}]}}`,
		`{"session_id":"s","limit":1e309}`, `{"session_id":"\ud800"}`, `{"a":`, `{"session_id":"s"}x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := DecodeParams[sample](raw)
		if err != nil {
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Reason != protocol.ReasonInvalidParams || pe.Detail == "" {
				t.Fatalf("error %#v is not invalid_params with a detail", err)
			}
			return
		}
		// What was accepted round-trips: re-encoding and decoding again succeeds.
		again, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal accepted value: %v", err)
		}
		if _, err := DecodeParams[sample](again); err != nil {
			t.Fatalf("re-decode %s: %v", again, err)
		}
	})
}
