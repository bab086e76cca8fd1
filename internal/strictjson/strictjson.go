// Package strictjson is the one strict JSON decoder of Hermes Gateway. Every
// JSON object the gateway accepts from outside its own memory goes through
// it: RPC params (rpc.DecodeParams), session.mutate payloads, stored
// receipts, control-socket lines and tool-call arguments. It decides what
// "strict" means once, so those five readers cannot disagree.
//
// Decode refuses, with an *Error naming the offending key path (such as
// "questions[0].question"):
//   - anything but one JSON object (absent or null data counts as {}),
//     malformed JSON, and trailing data after the object;
//   - unknown keys, and keys that differ only in case from a field's JSON
//     name (encoding/json would fold {"TITLE":…} into Title), at every
//     level of the target type;
//   - duplicate keys at any depth, also inside values the target keeps
//     opaque (json.RawMessage, interfaces, maps), because encoding/json
//     silently keeps the last one;
//   - wrong JSON types.
//
// Options.Required adds the rpc params rule: a struct field whose json tag
// lacks omitempty must be present, and null is refused where the Go type
// cannot hold it (anything but a pointer, an interface or a json.Unmarshaler
// such as json.RawMessage).
//
// It owns only decoding; it imports nothing internal and must never do so
// (it sits below protocol, rpc and everything else).
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Kind classifies what an *Error refuses.
type Kind int

// The kinds of refusal.
const (
	Syntax      Kind = iota + 1 // malformed JSON
	NotObject                   // valid or not, the data does not start with '{'
	Trailing                    // data after the object
	Unknown                     // a key the target type has no field for
	CaseVariant                 // a key that differs only in case from Name
	Duplicate                   // a key named twice in one object
	Missing                     // a required key is absent (Options.Required)
	Type                        // wrong JSON type: Want and Got (null under Options.Required)
	Value                       // any other refusal of a value, in Msg
)

// Error is a refusal. Its text names JSON keys and JSON types only (never Go
// types), so callers may show it to the peer that sent the data.
type Error struct {
	Kind Kind
	Path string // the key path, "" for the whole object
	Name string // CaseVariant: the field's JSON name
	Want string // Type: the JSON type the field takes ("string", "integer", …)
	Got  string // Type: what the data holds ("null", "number 1.5", …)
	Msg  string // Syntax and Value: what is wrong
}

func (e *Error) Error() string {
	switch e.Kind {
	case Syntax, Value:
		return e.Msg
	case NotObject:
		return "not a JSON object"
	case Trailing:
		return "trailing data after the JSON object"
	case Unknown:
		return fmt.Sprintf("unknown key %q", e.Path)
	case CaseVariant:
		return fmt.Sprintf("key %q differs in case from %q", e.Path, e.Name)
	case Duplicate:
		return fmt.Sprintf("duplicate key %q", e.Path)
	case Missing:
		return fmt.Sprintf("missing required key %q", e.Path)
	case Type:
		return fmt.Sprintf("key %q: want %s, got %s", e.Path, e.Want, e.Got)
	}
	return "invalid JSON"
}

// Options select the rules beyond Decode's.
type Options struct {
	// Required: every struct field whose json tag lacks omitempty must be
	// present, at every level, and null is refused where the Go type
	// cannot hold it (null counts as missing).
	Required bool
}

// Decode decodes the JSON object data into v, a non-nil pointer, with the
// package's rules and no options.
func Decode(data []byte, v any) error { return Options{}.Decode(data, v) }

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

var emptyObject = []byte("{}")

// Decode decodes the JSON object data into v, a non-nil pointer. Absent or
// null data decodes as {}. On error v may be partly written.
func (o Options) Decode(data []byte, v any) error {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return &Error{Kind: Value, Msg: "strictjson: decode target is not a pointer"}
	}
	data = bytes.Trim(data, " \t\r\n")
	if len(data) == 0 || string(data) == "null" {
		data = emptyObject
	}
	if data[0] != '{' {
		return &Error{Kind: NotObject}
	}
	w := walker{data: data, required: o.Required}
	w.path = w.pathBuf[:0]
	if err := w.value(t.Elem()); err != nil {
		return err
	}
	if w.skipSpace() < len(data) {
		return &Error{Kind: Trailing}
	}
	// Every key is now one of the type's own, named once: what remains is
	// encoding/json's own job (types, number ranges, Unmarshalers).
	// DisallowUnknownFields is a second fence, should the two views of a
	// struct's fields ever differ.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	return nil
}

// decodeError turns an encoding/json error into an *Error.
func decodeError(err error) *Error {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		return &Error{Kind: Type, Path: ute.Field, Want: jsonKind(ute.Type), Got: ute.Value}
	}
	return &Error{Kind: Value, Msg: strings.TrimPrefix(err.Error(), "json: ")}
}

// jsonKind names the JSON type a Go type expects.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return t.String()
}

// seg is one step of the key path: an object key or an array index.
type seg struct {
	key   []byte
	index int // -1 for a key
}

func pathString(segs []seg) string {
	var b strings.Builder
	for _, s := range segs {
		if s.index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.Write(s.key)
	}
	return b.String()
}
