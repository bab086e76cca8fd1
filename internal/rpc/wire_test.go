package rpc

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The hand-built frames must be byte-for-byte what json.Marshal makes of
// the same message (they only skip re-scanning members already encoded).
func TestFrameMatchesMarshal(t *testing.T) {
	t.Parallel()
	params, _ := json.Marshal(map[string]any{"text": "<b>&é\u2028", "n": 1.5, "a": []int{1}})
	result, _ := json.Marshal(map[string]any{"ok": true, "s": "x\"y"})
	ids := []json.RawMessage{nil, json.RawMessage(`7`), json.RawMessage(`"a<b>"`), json.RawMessage(`-1.5e3`), json.RawMessage(`null`)}
	for _, id := range ids {
		for _, p := range []json.RawMessage{nil, params, json.RawMessage(`{}`)} {
			for _, method := range []string{"prompt.submit", "a<&>\"b"} {
				checkFrame(t, request{JSONRPC: version, ID: id, Method: method, Params: p})
			}
		}
		if id == nil {
			continue
		}
		for _, r := range []json.RawMessage{result, json.RawMessage(`null`), json.RawMessage(`"s"`), nil} {
			checkFrame(t, response{JSONRPC: version, ID: id, Result: r})
		}
		checkFrame(t, response{JSONRPC: version, ID: id, Error: errInvalidRequest})
	}
}

func checkFrame(t *testing.T, msg interface{ frame() ([]byte, error) }) {
	t.Helper()
	got, err := msg.frame()
	if err != nil {
		t.Fatalf("frame(%+v): %v", msg, err)
	}
	want, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("frame(%+v)\n got %s\nwant %s", msg, got, want)
	}
}

func TestClassifyParseVersusInvalid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		frame string
		want  *WireErr
	}{
		{`{"jsonrpc":"2.0","method":"x",`, errParse},
		{`{"jsonrpc":"2.0","method":"x"} trailing`, errParse},
		{`{"jsonrpc":"2.0","method":"x","id":1,}`, errParse},
		{``, errParse},
		{`[1,2]`, errInvalidRequest},
		{`"str"`, errInvalidRequest},
		{`{"jsonrpc":"2.0","method":7,"id":1}`, errInvalidRequest},
		{`{"jsonrpc":"2.0","id":{},"method":"x"}`, errInvalidRequest},
	} {
		in := classify([]byte(tc.frame))
		if in.kind != kindReject || in.err != tc.want {
			t.Errorf("classify(%q) = kind %d err %+v, want reject %+v", tc.frame, in.kind, in.err, tc.want)
		}
	}
	in := classify([]byte(` {"jsonrpc":"2.0","method":"m","id":"a","params":{"k":1}}`))
	if in.kind != kindRequest || in.method != "m" || string(in.id) != `"a"` || string(in.params) != `{"k":1}` {
		t.Errorf("classify(request) = %+v", in)
	}
}
