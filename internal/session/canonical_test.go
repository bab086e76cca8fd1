package session

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestCanonicalJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr bool
	}{
		{"sorted nested keys", map[string]any{"b": 1, "a": map[string]any{"z": true, "y": nil}}, `{"a":{"y":null,"z":true},"b":1}`, false},
		{"no html escaping", map[string]string{"k": "<a&b>"}, `{"k":"<a&b>"}`, false},
		{"utf8 kept", []string{"é"}, `["é"]`, false},
		{"raw numbers kept", json.RawMessage(`{"n":1.50,"m":1e3}`), `{"m":1e3,"n":1.50}`, false},
		{"struct tags", protocol.Ref{SessionID: "s", ProfileID: "p"}, `{"profile_id":"p","session_id":"s"}`, false},
		{"spacing irrelevant", json.RawMessage(" { \"b\" : [ 1 , 2 ] , \"a\" : \"x\" } "), `{"a":"x","b":[1,2]}`, false},
		{"NaN rejected", map[string]any{"x": math.NaN()}, "", true},
		{"Inf rejected", []float64{math.Inf(1)}, "", true},
		{"unsupported type", map[string]any{"c": make(chan int)}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := CanonicalJSON(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if string(got) != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestFrozenRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"reference example", `{"request_id":"desk-42","source":"gui","cwd":"/home/ana/proj","model":"gpt-x","toolsets":[]}`,
			`{"cwd":"/home/ana/proj","model":"gpt-x","source":"gui","toolsets":[]}`},
		{"source defaulted", `{}`, `{"source":"cli"}`},
		{"explicit cli equals default", `{"source":"cli"}`, `{"source":"cli"}`},
		{"api_key and request_id dropped", `{"api_key":"sk-secret","request_id":"r","model":"m"}`, `{"model":"m","source":"cli"}`},
		{"explicit false kept", `{"yolo":false}`, `{"source":"cli","yolo":false}`},
		{"max_turns as written", `{"max_turns":"none"}`, `{"max_turns":"none","source":"cli"}`},
		{"editor keys sorted", `{"source":"acp","editor":{"b":1,"a":{"d":2,"c":3}}}`, `{"editor":{"a":{"c":3,"d":2},"b":1},"source":"acp"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := FrozenRequest(params(t, tt.in))
			if err != nil || got != tt.want {
				t.Fatalf("FrozenRequest = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestFrozenRequestEquality(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b  string
		equal bool
	}{
		{`{"model":"m","cwd":"/p","yolo":true}`, `{"yolo":true,"cwd":"/p","model":"m"}`, true},
		{`{"model":"m","request_id":"a","api_key":"k1"}`, `{"model":"m","request_id":"b","api_key":"k2"}`, true},
		{`{"model":"m"}`, `{"model":"m","yolo":false}`, false},
		{`{"model":"m"}`, `{"model":"m","toolsets":[]}`, false},
		{`{"model":"m"}`, `{"model":"n"}`, false},
		{`{"source":"gui"}`, `{"source":"tui"}`, false},
		{`{"max_turns":0}`, `{"max_turns":"none"}`, false},
	}
	for _, tt := range tests {
		a, errA := FrozenRequest(params(t, tt.a))
		b, errB := FrozenRequest(params(t, tt.b))
		if errA != nil || errB != nil || (a == b) != tt.equal {
			t.Errorf("%s vs %s: %s / %s (equal want %v)", tt.a, tt.b, a, b, tt.equal)
		}
	}
}

func TestFrozenRequestMalformedRaw(t *testing.T) {
	t.Parallel()
	_, err := FrozenRequest(protocol.SessionCreateParams{MaxTurns: json.RawMessage(`{`)})
	wantErr(t, err, protocol.ReasonInvalidParams, "malformed")
}
