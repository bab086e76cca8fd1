package strictjson

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// structFields is the JSON view of a struct type, as encoding/json sees it
// (exported fields, json tags, embedded structs flattened).
type structFields struct {
	list  []field        // declaration order
	index map[string]int // JSON name -> position in list
}

type field struct {
	name     string
	typ      reflect.Type
	required bool // the json tag has no omitempty
}

var fieldCache sync.Map // reflect.Type -> *structFields

func fieldsOf(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	sf := &structFields{index: make(map[string]int)}
	sf.collect(t)
	f, _ := fieldCache.LoadOrStore(t, sf)
	return f.(*structFields)
}

func (sf *structFields) collect(t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				sf.collect(ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fd := field{name: name, typ: f.Type, required: !hasOpt(opts, "omitempty")}
		if _, dup := sf.index[name]; !dup {
			sf.index[name] = len(sf.list)
			sf.list = append(sf.list, fd)
		}
	}
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// shape is the type whose structure the walker checks: pointers are
// followed; a type with its own UnmarshalJSON or an interface is opaque (nil).
func shape(t reflect.Type) reflect.Type {
	if t == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		if t.Implements(unmarshalerType) {
			return nil
		}
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	return t
}

// nullable reports whether JSON null is a meaningful value for t: a
// pointer, an interface, or a type with its own UnmarshalJSON (such as
// json.RawMessage, which keeps the null for its owner to judge).
func nullable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		return true
	}
	return reflect.PointerTo(t).Implements(unmarshalerType)
}
