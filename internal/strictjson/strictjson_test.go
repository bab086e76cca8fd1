package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type item struct {
	Name  string  `json:"name"`
	Notes *string `json:"notes,omitempty"`
}

type inner struct {
	Extra string `json:"extra,omitempty"`
}

type target struct {
	Title    string            `json:"title"`
	Archived *bool             `json:"archived,omitempty"`
	Count    int               `json:"count,omitempty"`
	Items    []item            `json:"items,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	Any      any               `json:"any,omitempty"`
	Hidden   string            `json:"-"`
	inner
}

// TestDecode is the one table of what the strict decoder accepts and
// refuses, in both modes. want is the refusal (nil = accepted); required is
// the refusal under Options{Required: true} when it differs ("same" = as
// without).
func TestDecode(t *testing.T) {
	t.Parallel()
	type refusal = *Error
	same := &Error{}
	tests := []struct {
		name, in string
		want     refusal
		required refusal
	}{
		// Accepted.
		{"minimal", `{"title":"t"}`, nil, same},
		{"absent is {}", ``, nil, &Error{Kind: Missing, Path: "title"}},
		{"null is {}", ` null `, nil, &Error{Kind: Missing, Path: "title"}},
		{"every field", `{"title":"t","archived":true,"count":2,"items":[{"name":"a","notes":"n"}],"labels":{"a":"b"},"raw":{"k":[1,{"x":null}]},"any":[1,"2"],"extra":"e"}`, nil, same},
		{"escaped key", `{"ti\u0074le":"t"}`, nil, same},
		{"whitespace", " \t\r\n{ \"title\" : \"t\" , \"count\" : -1.5e3 }\n", &Error{Kind: Type, Path: "count", Want: "integer", Got: "number -1.5e3"}, same},
		{"optional null", `{"title":"t","archived":null,"raw":null,"any":null}`, nil, same},
		{"null into a string", `{"title":null}`, nil, &Error{Kind: Type, Path: "title", Want: "string", Got: "null"}},
		{"null slice", `{"title":"t","items":null}`, nil, &Error{Kind: Type, Path: "items", Want: "array", Got: "null"}},
		{"null element", `{"title":"t","items":[null]}`, nil, &Error{Kind: Type, Path: "items[0]", Want: "object", Got: "null"}},

		// Not one JSON object.
		{"array", `[{"title":"t"}]`, &Error{Kind: NotObject}, same},
		{"string", `"x"`, &Error{Kind: NotObject}, same},
		{"garbage", `x`, &Error{Kind: NotObject}, same},
		{"trailing object", `{"title":"t"} {}`, &Error{Kind: Trailing}, same},
		{"trailing byte", `{"title":"t"}x`, &Error{Kind: Trailing}, same},
		{"truncated", `{"title":`, &Error{Kind: Syntax, Msg: "malformed JSON"}, same},
		{"trailing comma", `{"title":"t",}`, &Error{Kind: Syntax, Msg: "malformed JSON"}, same},
		{"bad escape", `{"title":"\x"}`, &Error{Kind: Syntax, Msg: "malformed JSON"}, same},
		{"control byte", "{\"title\":\"a\nb\"}", &Error{Kind: Syntax, Msg: "malformed JSON"}, same},
		{"leading zero", `{"title":"t","count":01}`, &Error{Kind: Syntax, Msg: "malformed JSON"}, same},
		{"bare word", `{"title":"t","archived":tru}`, &Error{Kind: Syntax, Msg: "malformed JSON"}, same},

		// Keys.
		{"unknown", `{"title":"t","internal":1}`, &Error{Kind: Unknown, Path: "internal"}, same},
		{"json dash field", `{"title":"t","Hidden":"x"}`, &Error{Kind: Unknown, Path: "Hidden"}, same},
		{"case variant", `{"TITLE":"t"}`, &Error{Kind: CaseVariant, Path: "TITLE", Name: "title"}, same},
		{"case variant embedded", `{"title":"t","Extra":"e"}`, &Error{Kind: CaseVariant, Path: "Extra", Name: "extra"}, same},
		{"case variant nested", `{"title":"t","items":[{"Name":"a"}]}`, &Error{Kind: CaseVariant, Path: "items[0].Name", Name: "name"}, same},
		{"case variant beside the key", `{"title":"t","Title":"u"}`, &Error{Kind: CaseVariant, Path: "Title", Name: "title"}, same},
		{"unknown nested", `{"title":"t","items":[{"name":"a"},{"name":"b","x":1}]}`, &Error{Kind: Unknown, Path: "items[1].x"}, same},
		{"duplicate", `{"title":"t","title":"u"}`, &Error{Kind: Duplicate, Path: "title"}, same},
		{"duplicate escaped", `{"title":"t","titl\u0065":"u"}`, &Error{Kind: Duplicate, Path: "title"}, same},
		{"duplicate nested", `{"title":"t","items":[{"name":"a","name":"b"}]}`, &Error{Kind: Duplicate, Path: "items[0].name"}, same},
		{"duplicate in a map", `{"title":"t","labels":{"a":"1","a":"2"}}`, &Error{Kind: Duplicate, Path: "labels.a"}, same},
		{"duplicate in raw", `{"title":"t","raw":{"a":{"b":1,"b":2}}}`, &Error{Kind: Duplicate, Path: "raw.a.b"}, same},
		{"duplicate in any", `{"title":"t","any":[{"k":1,"k":1}]}`, &Error{Kind: Duplicate, Path: "any[0].k"}, same},
		{"duplicate past the small set", `{"title":"t","raw":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"c":0}}`, &Error{Kind: Duplicate, Path: "raw.c"}, same},

		// Required (Options.Required only).
		{"missing", `{}`, nil, &Error{Kind: Missing, Path: "title"}},
		{"missing nested", `{"title":"t","items":[{}]}`, nil, &Error{Kind: Missing, Path: "items[0].name"}},

		// Types.
		{"number for string", `{"title":1}`, &Error{Kind: Type, Path: "title", Want: "string", Got: "number"}, same},
		{"object for string", `{"title":{"a":1}}`, &Error{Kind: Type, Path: "title", Want: "string", Got: "object"}, same},
		{"string for bool", `{"title":"t","archived":"yes"}`, &Error{Kind: Type, Path: "archived", Want: "boolean", Got: "string"}, same},
		{"bool for int", `{"title":"t","count":true}`, &Error{Kind: Type, Path: "count", Want: "integer", Got: "bool"}, same},
		{"fraction for int", `{"title":"t","count":1.5}`, &Error{Kind: Type, Path: "count", Want: "integer", Got: "number 1.5"}, same},
		{"overflow", `{"title":"t","count":1e400}`, &Error{Kind: Type, Path: "count", Want: "integer", Got: "number 1e400"}, same},
		{"nested type", `{"title":"t","items":[{"name":2}]}`, &Error{Kind: Type, Path: "items.name", Want: "string", Got: "number"}, same},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			check := func(opts Options, want *Error) {
				t.Helper()
				var v target
				err := opts.Decode([]byte(tt.in), &v)
				if want == nil {
					if err != nil {
						t.Fatalf("%+v: err = %v, want nil", opts, err)
					}
					return
				}
				var got *Error
				if !errors.As(err, &got) {
					t.Fatalf("%+v: err = %#v, want %+v", opts, err, want)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%+v: %q (-want +got)\n%s", opts, err, d)
				}
			}
			check(Options{}, tt.want)
			if tt.required == same {
				tt.required = tt.want
			}
			check(Options{Required: true}, tt.required)
		})
	}
}

func TestDecodeValues(t *testing.T) {
	t.Parallel()
	var got target
	in := `{"title":"t","archived":false,"items":[{"name":"a"}],"labels":{"k":"v"},"raw":{"k":1},"any":[1],"extra":"e"}`
	if err := Decode([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	no := false
	want := target{Title: "t", Archived: &no, Items: []item{{Name: "a"}}, Labels: map[string]string{"k": "v"},
		Raw: json.RawMessage(`{"k":1}`), Any: []any{1.0}, inner: inner{Extra: "e"}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(target{})); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  *Error
		want string
	}{
		{&Error{Kind: Syntax, Msg: "malformed JSON"}, "malformed JSON"},
		{&Error{Kind: NotObject}, "not a JSON object"},
		{&Error{Kind: Trailing}, "trailing data after the JSON object"},
		{&Error{Kind: Unknown, Path: "a.b"}, `unknown key "a.b"`},
		{&Error{Kind: CaseVariant, Path: "TITLE", Name: "title"}, `key "TITLE" differs in case from "title"`},
		{&Error{Kind: Duplicate, Path: "a[0].b"}, `duplicate key "a[0].b"`},
		{&Error{Kind: Missing, Path: "a"}, `missing required key "a"`},
		{&Error{Kind: Type, Path: "a", Want: "string", Got: "null"}, `key "a": want string, got null`},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestDecodeTooDeep(t *testing.T) {
	t.Parallel()
	deep := []byte(`{"raw":`)
	for range maxDepth + 1 {
		deep = append(deep, '[')
	}
	var v target
	var e *Error
	if err := Decode(deep, &v); !errors.As(err, &e) || e.Kind != Syntax {
		t.Fatalf("err = %v, want a syntax refusal", err)
	}
}

// FuzzDecode: the walker's grammar agrees with encoding/json's. Whatever
// Decode accepts is valid JSON, and valid JSON it refuses is refused for a
// reason other than syntax.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"title":"t"}`, `{"raw":[1,-0.5e+3,"\u00e9\n",true,false,null]}`,
		`{"title":"t","title":"u"}`, `{"any":{"a":{"b":[]}}}`, `{"raw":"\ud800"}`, "{\"raw\":\"\xff\"}", `{"raw":1.}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v target
		err := Decode(data, &v)
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error %#v is not an *Error", err)
		}
		if err == nil && len(bytes.Trim(data, " \t\r\n")) > 0 && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if e != nil && e.Kind == Syntax && json.Valid(data) {
			t.Fatalf("valid JSON %q refused as malformed", data)
		}
	})
}
