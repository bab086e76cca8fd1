package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

const allowlistKey = "command_allowlist"

// ReadAllowlist reads command_allowlist from $home/config.yaml now (it is
// read at every approval decision, so an edit or an "always" applies at
// once). A missing file or key is an empty list. Only this key is decoded:
// an unrelated invalid value elsewhere does not hide the allowlist.
func ReadAllowlist(home string) ([]string, error) {
	doc, err := readDoc(home)
	if err != nil || doc == nil {
		return []string{}, err
	}
	if doc.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: top level: want a mapping", FileName)
	}
	n, err := lookup(doc, allowlistKey, allowlistKey)
	if err != nil || isNull(n) {
		return []string{}, wrapFile(err)
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return nil, fmt.Errorf("%s: %s: want a list of strings", FileName, allowlistKey)
	}
	return list, nil
}

func wrapFile(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", FileName, err)
}

// allowlistMu serializes AppendAllowlist within the process (the daemon is
// the only writer of config.yaml; a concurrent hand edit can still race).
var allowlistMu sync.Mutex

// AppendAllowlist adds pattern to command_allowlist in $home/config.yaml,
// keeping every other key, value and comment (a yaml.Node round trip; the
// layout may be re-indented). A pattern already listed is not added again
// (the file is then not rewritten). A missing file is created with just that
// key. The write is atomic (temp file + rename) with mode 0600.
func AppendAllowlist(home, pattern string) error {
	if strings.TrimSpace(pattern) == "" {
		return errors.New("append allowlist: empty pattern")
	}
	allowlistMu.Lock()
	defer allowlistMu.Unlock()
	path := filepath.Join(home, FileName)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read config: %w", err)
	}
	out, changed, err := appendToDoc(data, pattern)
	if err != nil || !changed {
		return err
	}
	return writeAtomic(path, out)
}

// appendToDoc returns data with pattern appended to command_allowlist.
func appendToDoc(data []byte, pattern string) ([]byte, bool, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, false, fmt.Errorf("%s: %s", FileName, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode}
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		doc.Content = []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, false, fmt.Errorf("%s: top level: want a mapping", FileName)
	}
	seq, err := allowlistSeq(root)
	if err != nil {
		return nil, false, err
	}
	for _, item := range seq.Content {
		if item.Kind == yaml.ScalarNode && item.Value == pattern {
			return nil, false, nil
		}
	}
	if len(seq.Content) == 0 {
		seq.Style &^= yaml.FlowStyle // "[]" becomes a block list
	}
	seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: pattern})
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, false, fmt.Errorf("encode config: %w", err)
	}
	return buf.Bytes(), true, enc.Close()
}

// allowlistSeq returns the command_allowlist sequence node of root,
// creating it (or replacing a null) when needed.
func allowlistSeq(root *yaml.Node) (*yaml.Node, error) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != allowlistKey {
			continue
		}
		v := root.Content[i+1]
		if isNull(v) {
			seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", LineComment: v.LineComment}
			root.Content[i+1] = seq
			return seq, nil
		}
		if v.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("%s: %s: want a list of strings", FileName, allowlistKey)
		}
		return v, nil
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: allowlistKey}, seq)
	return seq, nil
}

// writeAtomic replaces path with data: a 0600 temp file in the same
// directory, synced, renamed over path, then the directory synced.
func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(0o600); err == nil {
		if _, err = f.Write(data); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
