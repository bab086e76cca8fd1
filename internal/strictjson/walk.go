package strictjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"unicode/utf8"
)

// walker checks data's keys against a Go type in one pass over the bytes,
// validating the JSON grammar as it goes (as encoding/json's scanner does:
// RFC 8259, invalid UTF-8 tolerated). It allocates only for escaped or
// non-ASCII keys, objects of more than smallKeys keys a struct does not
// describe, and the error it returns.
type walker struct {
	data     []byte
	i        int
	depth    int
	required bool
	path     []seg
	pathBuf  [8]seg
}

func (w *walker) syntax() error {
	return &Error{Kind: Syntax, Msg: "malformed JSON"}
}

func (w *walker) errAt(kind Kind) *Error {
	return &Error{Kind: kind, Path: pathString(w.path)}
}

func (w *walker) skipSpace() int {
	for w.i < len(w.data) {
		switch w.data[w.i] {
		case ' ', '\t', '\r', '\n':
			w.i++
		default:
			return w.i
		}
	}
	return w.i
}

// value consumes one JSON value; t is the Go type it decodes into, nil when
// opaque (then only duplicate keys are checked beneath it).
func (w *walker) value(t reflect.Type) error {
	if w.skipSpace() >= len(w.data) {
		return w.syntax()
	}
	switch c := w.data[w.i]; c {
	case '{', '[':
		if w.depth++; w.depth > maxDepth {
			return &Error{Kind: Syntax, Msg: "exceeded max depth"}
		}
		var err error
		if c == '{' {
			err = w.object(shape(t))
		} else {
			err = w.array(shape(t))
		}
		w.depth--
		return err
	case '"':
		_, err := w.str()
		return err
	case 'n':
		if !w.literal("null") {
			return w.syntax()
		}
		if w.required && t != nil && !nullable(t) {
			e := w.errAt(Type)
			e.Want, e.Got = jsonKind(t), "null"
			return e
		}
		return nil
	case 't':
		return w.lit("true")
	case 'f':
		return w.lit("false")
	}
	return w.number()
}

func (w *walker) literal(s string) bool {
	if !bytes.HasPrefix(w.data[w.i:], []byte(s)) {
		return false
	}
	w.i += len(s)
	return true
}

func (w *walker) lit(s string) error {
	if !w.literal(s) {
		return w.syntax()
	}
	return nil
}

// number consumes -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (w *walker) number() error {
	d := w.data
	if w.i < len(d) && d[w.i] == '-' {
		w.i++
	}
	switch {
	case w.i < len(d) && d[w.i] == '0':
		w.i++
	case w.digits() == 0:
		return w.syntax()
	}
	if w.i < len(d) && d[w.i] == '.' {
		w.i++
		if w.digits() == 0 {
			return w.syntax()
		}
	}
	if w.i < len(d) && (d[w.i] == 'e' || d[w.i] == 'E') {
		w.i++
		if w.i < len(d) && (d[w.i] == '+' || d[w.i] == '-') {
			w.i++
		}
		if w.digits() == 0 {
			return w.syntax()
		}
	}
	return nil
}

func (w *walker) digits() int {
	n := 0
	for w.i < len(w.data) && w.data[w.i] >= '0' && w.data[w.i] <= '9' {
		w.i++
		n++
	}
	return n
}

// str consumes a string and returns its raw bytes, quotes included.
func (w *walker) str() (quoted []byte, err error) {
	start := w.i
	w.i++ // '"'
	for w.i < len(w.data) {
		c := w.data[w.i]
		switch {
		case c == '"':
			w.i++
			return w.data[start:w.i], nil
		case c == '\\':
			if err := w.escape(); err != nil {
				return nil, err
			}
			continue
		case c < 0x20:
			return nil, w.syntax()
		}
		w.i++
	}
	return nil, w.syntax()
}

func (w *walker) escape() error {
	w.i++ // '\\'
	if w.i >= len(w.data) {
		return w.syntax()
	}
	switch w.data[w.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		w.i++
		return nil
	case 'u':
		if w.i+5 > len(w.data) {
			return w.syntax()
		}
		for _, h := range w.data[w.i+1 : w.i+5] {
			if !isHex(h) {
				return w.syntax()
			}
		}
		w.i += 5
		return nil
	}
	return w.syntax()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// key consumes an object key and its ':' and returns the key as
// encoding/json reads it.
func (w *walker) key() ([]byte, error) {
	if w.skipSpace() >= len(w.data) || w.data[w.i] != '"' {
		return nil, w.syntax()
	}
	quoted, err := w.str()
	if err != nil {
		return nil, err
	}
	if w.skipSpace() >= len(w.data) || w.data[w.i] != ':' {
		return nil, w.syntax()
	}
	w.i++
	k := quoted[1 : len(quoted)-1]
	if plainASCII(k) {
		return k, nil
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return nil, w.syntax()
	}
	return []byte(s), nil
}

func plainASCII(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// next consumes the ',' or the close delimiter after a member or element;
// it reports whether another one follows.
func (w *walker) next(close byte) (bool, error) {
	if w.skipSpace() >= len(w.data) {
		return false, w.syntax()
	}
	switch w.data[w.i] {
	case ',':
		w.i++
		return true, nil
	case close:
		w.i++
		return false, nil
	}
	return false, w.syntax()
}

// empty consumes close if it comes first (an empty object or array).
func (w *walker) empty(close byte) bool {
	if w.skipSpace() < len(w.data) && w.data[w.i] == close {
		w.i++
		return true
	}
	return false
}

// smallKeys is how many keys of an object a struct does not describe are
// compared by scanning before a map takes over.
const smallKeys = 8

// keySet detects duplicate keys of an object without a struct type.
type keySet struct {
	small [smallKeys][]byte
	n     int
	m     map[string]struct{}
}

// add reports whether k was new.
func (s *keySet) add(k []byte) bool {
	if s.m != nil {
		if _, ok := s.m[string(k)]; ok {
			return false
		}
		s.m[string(k)] = struct{}{}
		return true
	}
	for _, o := range s.small[:s.n] {
		if bytes.Equal(o, k) {
			return false
		}
	}
	if s.n < smallKeys {
		s.small[s.n] = k
		s.n++
		return true
	}
	s.m = make(map[string]struct{}, 2*smallKeys)
	for _, o := range s.small {
		s.m[string(o)] = struct{}{}
	}
	s.m[string(k)] = struct{}{}
	return true
}

func (w *walker) object(t reflect.Type) error {
	w.i++ // '{'
	var fields *structFields
	if t != nil && t.Kind() == reflect.Struct {
		fields = fieldsOf(t)
	}
	var elem reflect.Type
	if t != nil && t.Kind() == reflect.Map {
		elem = t.Elem()
	}
	var seenBuf [64]bool
	var seen []bool // by field position, when fields != nil
	if fields != nil {
		if n := len(fields.list); n > len(seenBuf) {
			seen = make([]bool, n)
		} else {
			seen = seenBuf[:n]
		}
	}
	var keys keySet
	for more := !w.empty('}'); more; {
		k, err := w.key()
		if err != nil {
			return err
		}
		w.path = append(w.path, seg{key: k, index: -1})
		child := elem
		if fields != nil {
			pos, err := w.field(fields, k)
			if err != nil {
				return err
			}
			if seen[pos] {
				return w.errAt(Duplicate)
			}
			seen[pos] = true
			child = fields.list[pos].typ
		} else if !keys.add(k) {
			return w.errAt(Duplicate)
		}
		if err := w.value(child); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
		if more, err = w.next('}'); err != nil {
			return err
		}
	}
	if w.required && fields != nil {
		for pos, f := range fields.list {
			if f.required && !seen[pos] {
				w.path = append(w.path, seg{key: []byte(f.name), index: -1})
				return w.errAt(Missing)
			}
		}
	}
	return nil
}

// field is the position of key k in fields, or the refusal of k.
func (w *walker) field(fields *structFields, k []byte) (int, error) {
	if pos, ok := fields.index[string(k)]; ok {
		return pos, nil
	}
	for _, f := range fields.list {
		if strings.EqualFold(f.name, string(k)) {
			e := w.errAt(CaseVariant)
			e.Name = f.name
			return 0, e
		}
	}
	return 0, w.errAt(Unknown)
}

func (w *walker) array(t reflect.Type) error {
	w.i++ // '['
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	for i, more := 0, !w.empty(']'); more; i++ {
		w.path = append(w.path, seg{index: i})
		if err := w.value(elem); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
		var err error
		if more, err = w.next(']'); err != nil {
			return err
		}
	}
	return nil
}
