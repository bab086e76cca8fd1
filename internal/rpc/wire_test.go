package rpc

import (
	"bytes"
	"encoding/json"
	"strings"
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

func TestClassifyDuplicateEnvelopeMembers(t *testing.T) {
	t.Parallel()
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","method":"n"}`,
		`{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{},"params":{"a":1}}`,
		`{"jsonrpc":"2.0","id":1,"ID":2,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"Method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","\u0069d":3}`,
		`{"jsonrpc":"2.0","id":7,"result":{"id":1},"result":2}`,
	} {
		in := classify([]byte(frame))
		if in.kind != kindReject || in.err != errInvalidRequest || string(in.id) != "null" {
			t.Errorf("classify(%s) = kind %d id %s err %+v, want reject -32600 id null", frame, in.kind, in.id, in.err)
		}
	}
	// Nested duplicates are params' business (DecodeParams); unknown and
	// repeated unknown members are ignored as before.
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"id":1,"x":{"id":2}}}`,
		`{ "jsonrpc" : "2.0" , "x":[1,{"id":[]}], "x":"}" , "id" : "a\"id" , "method":"m" }`,
		`{"jsonrpc":"2.0","id":-1.5e3,"method":"m","params":null}`,
	} {
		if in := classify([]byte(frame)); in.kind != kindRequest {
			t.Errorf("classify(%s) = kind %d err %+v, want a request", frame, in.kind, in.err)
		}
	}
}

func FuzzMembersUnique(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,"]"]}}`)
	f.Add(`{"id":1,"id":2}`)
	f.Fuzz(func(t *testing.T, frame string) {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(frame), &m) != nil {
			return
		}
		// Reference: decode member by member and count folded names.
		dec := json.NewDecoder(strings.NewReader(frame))
		_, _ = dec.Token()
		count := map[string]int{}
		exact := true
		for dec.More() {
			tok, _ := dec.Token()
			key := tok.(string)
			for _, name := range memberNames {
				if strings.EqualFold(key, name) {
					count[name]++
					exact = exact && key == name
				}
			}
			var raw json.RawMessage
			_ = dec.Decode(&raw)
		}
		want := exact
		for _, n := range count {
			want = want && n <= 1
		}
		if got := membersUnique([]byte(frame)); got != want {
			t.Fatalf("membersUnique(%s) = %v, want %v", frame, got, want)
		}
	})
}
