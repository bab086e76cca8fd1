package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

const richConfig = `# Hermes config — hand written
model:
  default: llama3 # the local one
  base_url: http://127.0.0.1:11434/v1
telemetry: {opt_in: false} # unknown key, kept
# commands I trust
command_allowlist:
  - git status
agent:
  max_turns: 12
`

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppendAllowlistKeepsEverything(t *testing.T) {
	t.Parallel()
	home := writeConfig(t, richConfig)
	before, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := AppendAllowlist(home, "rm -r -- build"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, FileName)
	text := readFile(t, path)
	for _, keep := range []string{"# Hermes config — hand written", "# the local one", "telemetry:", "opt_in: false", "# unknown key, kept", "# commands I trust", "max_turns: 12"} {
		if !strings.Contains(text, keep) {
			t.Errorf("lost %q:\n%s", keep, text)
		}
	}
	after, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	before.CommandAllowlist = append(before.CommandAllowlist, "rm -r -- build")
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("meaning changed beyond the allowlist (-want +got)\n%s", d)
	}
	var raw, orig map[string]any
	_ = yaml.Unmarshal([]byte(text), &raw)
	_ = yaml.Unmarshal([]byte(richConfig), &orig)
	orig["command_allowlist"] = []any{"git status", "rm -r -- build"}
	if d := cmp.Diff(orig, raw); d != "" {
		t.Errorf("raw document differs (-want +got)\n%s", d)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, %v; want 0600", fi.Mode(), err)
	}
	// Idempotent: the same pattern again leaves the file byte for byte.
	if err := AppendAllowlist(home, "rm -r -- build"); err != nil {
		t.Fatal(err)
	}
	if again := readFile(t, path); again != text {
		t.Errorf("second append rewrote the file:\n%s", again)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
}

func TestAppendAllowlistShapes(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, body string }{
		{"missing key", "model: {default: x}\n"},
		{"null key", "command_allowlist: # none yet\nmodel: {default: x}\n"},
		{"flow empty", "command_allowlist: []\nmodel: {default: x}\n"},
		{"empty file", ""},
		{"comments only", "# just a comment\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := writeConfig(t, tt.body)
			if err := AppendAllowlist(home, "make test"); err != nil {
				t.Fatal(err)
			}
			got, err := ReadAllowlist(home)
			if err != nil || !slices.Equal(got, []string{"make test"}) {
				t.Fatalf("ReadAllowlist = %v, %v\n%s", got, err, readFile(t, filepath.Join(home, FileName)))
			}
			if strings.Contains(tt.body, "model") {
				if c, err := Load(home); err != nil || c.Model.Default != "x" {
					t.Errorf("Load after append = %+v, %v", c.Model, err)
				}
			}
		})
	}
}

func TestAppendAllowlistCreatesFile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := AppendAllowlist(home, "npm test"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, FileName)
	if got := readFile(t, path); got != "command_allowlist:\n  - npm test\n" {
		t.Errorf("created file = %q", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", fi.Mode())
	}
}

func TestAppendAllowlistRefuses(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"scalar list": "command_allowlist: ls\n",
		"list top":    "- a\n",
		"bad yaml":    "model: {\n",
	} {
		home := writeConfig(t, body)
		if err := AppendAllowlist(home, "x"); err == nil {
			t.Errorf("%s: append succeeded", name)
		}
		if got := readFile(t, filepath.Join(home, FileName)); got != body {
			t.Errorf("%s: file changed to %q", name, got)
		}
	}
	if err := AppendAllowlist(t.TempDir(), "  "); err == nil {
		t.Error("empty pattern accepted")
	}
}

func TestAppendAllowlistConcurrent(t *testing.T) {
	t.Parallel()
	home := writeConfig(t, richConfig)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if err := AppendAllowlist(home, fmt.Sprintf("cmd %d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := ReadAllowlist(home)
	if err != nil || len(got) != 21 {
		t.Fatalf("ReadAllowlist = %d entries, %v", len(got), err)
	}
}

func TestReadAllowlist(t *testing.T) {
	t.Parallel()
	got, err := ReadAllowlist(t.TempDir())
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("missing file = %v, %v", got, err)
	}
	// Live read ignores unrelated invalid values.
	got, err = ReadAllowlist(writeConfig(t, "agent: {max_turns: -1}\ncommand_allowlist: [a, b]\n"))
	if err != nil || !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("ReadAllowlist = %v, %v", got, err)
	}
	if _, err := ReadAllowlist(writeConfig(t, "command_allowlist: {a: 1}\n")); err == nil {
		t.Error("mapping accepted as allowlist")
	}
}
