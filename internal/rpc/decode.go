package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// DecodeParams decodes params strictly into a T (SPEC §4). Absent or null
// params decode as {}. Params must be a JSON object. Every failure is a
// *protocol.Error with reason invalid_params and a Detail naming the key and
// why:
//   - unknown keys, keys that differ only in case from a field's JSON name,
//     and duplicate keys, at the top level and in nested objects;
//   - missing required keys: a struct field whose json tag lacks omitempty
//     is required, at every level;
//   - null where the Go type cannot hold null (anything but a pointer, an
//     interface or a json.Unmarshaler such as json.RawMessage);
//   - wrong JSON types.
//
// Structure is checked by walking the tokens once against T's type, then the
// value is decoded with DisallowUnknownFields.
func DecodeParams[T any](raw json.RawMessage) (T, error) {
	var v T
	if len(bytes.TrimSpace(raw)) == 0 || isNull(raw) {
		raw = json.RawMessage("{}")
	}
	if !isObject(raw) {
		return v, invalidParams("params must be a JSON object")
	}
	if err := checkStrict(raw, reflect.TypeFor[T]()); err != nil {
		return v, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		var zero T
		return zero, invalidParams(decodeDetail(err))
	}
	return v, nil
}

func invalidParams(detail string) *protocol.Error {
	return &protocol.Error{Reason: protocol.ReasonInvalidParams, Detail: detail}
}

// decodeDetail turns an encoding/json error into public text.
func decodeDetail(err error) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		return fmt.Sprintf("key %q: want %s, got %s", ute.Field, jsonKind(ute.Type), ute.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
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

// checkStrict walks raw's tokens once against t.
func checkStrict(raw []byte, t reflect.Type) error {
	w := walker{dec: json.NewDecoder(bytes.NewReader(raw))}
	w.dec.UseNumber()
	if err := w.value("", t); err != nil {
		return err
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return invalidParams("trailing data after params")
	}
	return nil
}

type walker struct{ dec *json.Decoder }

// value consumes one JSON value at path; t is the Go type it decodes into,
// nil when unknown (then only duplicate keys are checked).
func (w *walker) value(path string, t reflect.Type) error {
	tok, err := w.dec.Token()
	if err != nil {
		return invalidParams("malformed JSON")
	}
	if tok == nil {
		if t != nil && !nullable(t) {
			return invalidParams(fmt.Sprintf("key %q: want %s, got null", path, jsonKind(t)))
		}
		return nil
	}
	switch tok {
	case json.Delim('{'):
		return w.object(path, shape(t))
	case json.Delim('['):
		return w.array(path, shape(t))
	}
	return nil
}

func (w *walker) object(path string, t reflect.Type) error {
	var fields *structFields
	if t != nil && t.Kind() == reflect.Struct {
		fields = fieldsOf(t)
	}
	seen := make(map[string]bool)
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return invalidParams("malformed JSON")
		}
		key := tok.(string) // object keys are always strings
		p := joinKey(path, key)
		if seen[key] {
			return invalidParams(fmt.Sprintf("duplicate key %q", p))
		}
		seen[key] = true
		child, err := childType(t, fields, key, p)
		if err != nil {
			return err
		}
		if err := w.value(p, child); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil { // '}'
		return invalidParams("malformed JSON")
	}
	return fields.checkRequired(path, seen)
}

func (w *walker) array(path string, t reflect.Type) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	for i := 0; w.dec.More(); i++ {
		if err := w.value(path+"["+strconv.Itoa(i)+"]", elem); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil { // ']'
		return invalidParams("malformed JSON")
	}
	return nil
}

// childType is the Go type of member key of an object decoded into t.
func childType(t reflect.Type, fields *structFields, key, path string) (reflect.Type, error) {
	switch {
	case fields != nil:
		if f, ok := fields.byName[key]; ok {
			return f.typ, nil
		}
		for _, f := range fields.list {
			if strings.EqualFold(f.name, key) {
				return nil, invalidParams(fmt.Sprintf("key %q differs in case from %q", path, f.name))
			}
		}
		return nil, invalidParams(fmt.Sprintf("unknown key %q", path))
	case t != nil && t.Kind() == reflect.Map:
		return t.Elem(), nil
	}
	return nil, nil
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
