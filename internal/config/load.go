package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileName is the name of the configuration file in a profile home.
const FileName = "config.yaml"

// Load reads $home/config.yaml over Defaults and validates the result. A
// missing file yields Defaults. Errors name the file ("config.yaml: ...")
// and, for a bad value, the key path, e.g.
// "config.yaml: agent.max_turns: want a positive integer".
func Load(home string) (Config, error) {
	c := Defaults()
	doc, err := readDoc(home)
	if err != nil || doc == nil {
		return c, err
	}
	if err := decodeNode(doc, reflect.ValueOf(&c).Elem(), "", ""); err != nil {
		return Defaults(), fmt.Errorf("%s: %w", FileName, err)
	}
	if err := c.Validate(); err != nil {
		return Defaults(), fmt.Errorf("%s: %w", FileName, err)
	}
	return c, nil
}

// readDoc parses config.yaml into its top-level node: nil when the file is
// missing or holds no document.
func readDoc(home string) (*yaml.Node, error) {
	data, err := os.ReadFile(filepath.Join(home, FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err) // the os error names the path
	}
	return parseDoc(data)
}

func parseDoc(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: %s", FileName, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return nil, nil
	}
	return doc.Content[0], nil
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// decodeNode decodes n into v, keeping v's current (default) value where n
// or any key under it is absent or null. path names n for errors; want is
// the "want" tag of the field being decoded.
func decodeNode(n *yaml.Node, v reflect.Value, path, want string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if isNull(n) {
		return nil
	}
	if reflect.PointerTo(v.Type()).Implements(unmarshalerType) {
		if err := n.Decode(v.Addr().Interface()); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		return decodeStruct(n, v, path)
	case reflect.Map:
		return decodeMap(n, v, path, want)
	}
	if isInt(v.Kind()) && n.ShortTag() != "!!int" { // yaml.v3 would truncate 1.5
		return typeError(path, want, v.Type())
	}
	fresh := reflect.New(v.Type())
	if err := n.Decode(fresh.Interface()); err != nil {
		return typeError(path, want, v.Type())
	}
	v.Set(fresh.Elem())
	return nil
}

func decodeStruct(n *yaml.Node, v reflect.Value, path string) error {
	if n.Kind != yaml.MappingNode {
		return typeError(path, "", v.Type())
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		child, err := lookup(n, key, join(path, key))
		if err != nil {
			return err
		}
		if child == nil {
			continue
		}
		if err := decodeNode(child, v.Field(i), join(path, key), f.Tag.Get("want")); err != nil {
			return err
		}
	}
	return nil
}

// decodeMap merges the entries of n over v's current entries.
func decodeMap(n *yaml.Node, v reflect.Value, path, want string) error {
	if n.Kind != yaml.MappingNode {
		return typeError(path, "", v.Type())
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		p := join(path, key)
		if seen[key] {
			return fmt.Errorf("%s: duplicate key", p)
		}
		seen[key] = true
		elem := reflect.New(v.Type().Elem()).Elem()
		if old := v.MapIndex(reflect.ValueOf(key)); old.IsValid() {
			elem.Set(old)
		}
		if err := decodeNode(n.Content[i+1], elem, p, want); err != nil {
			return err
		}
		v.SetMapIndex(reflect.ValueOf(key), elem)
	}
	return nil
}

// lookup returns the value node of key in mapping n, nil when absent.
func lookup(n *yaml.Node, key, path string) (*yaml.Node, error) {
	var found *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != key {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("%s: duplicate key", path)
		}
		found = n.Content[i+1]
	}
	return found, nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func typeError(path, want string, t reflect.Type) error {
	if want == "" {
		want = kindWant(t)
	}
	if path == "" {
		path = "top level"
	}
	return fmt.Errorf("%s: want %s", path, want)
}

func kindWant(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(kindWant(t.Elem()), "a ") + "s"
	case reflect.Struct, reflect.Map:
		return "a mapping"
	}
	return t.String()
}

func isInt(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Uint64
}
