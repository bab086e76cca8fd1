package config

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// HooksSection returns config.yaml's hooks: section as YAML (nil when
// absent or null), for package hooks to parse. The section is kept out of
// Load on purpose: a malformed hooks: section must not stop the daemon or
// change any other setting; the caller keeps its last good hooks and
// reports the key. Errors are the file's (unreadable, not YAML).
func HooksSection(home string) ([]byte, error) {
	doc, err := readDoc(home)
	if err != nil || doc == nil || doc.Kind != yaml.MappingNode {
		return nil, err
	}
	n, err := lookup(doc, "hooks", "hooks")
	if err != nil || n == nil || isNull(n) {
		return nil, err
	}
	out, err := yaml.Marshal(n)
	if err != nil {
		return nil, fmt.Errorf("%s: hooks: %w", FileName, err)
	}
	return out, nil
}
