package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// With the home as the cwd, writes to its top level and beneath its
// dot-directories ask (the sandbox's home rule, for file tools); its
// ordinary directories do not. A denied write leaves nothing behind.
func TestHomeTopWritesAsk(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "project"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		asks bool
	}{
		{".config/systemd/user/evil.service", true},
		{".local/bin/git", true},
		{"notes.txt", true},
		{"project/main.go", false},
	} {
		ap := &fakeApprover{allow: false}
		env := &Env{Cwd: home, Approver: ap, UserHome: home}
		res := run(t, env, "write_file", map[string]any{"path": tc.path, "content": "x"})
		_, statErr := os.Stat(filepath.Join(home, tc.path))
		if asked := len(ap.requests()) == 1; asked != tc.asks {
			t.Errorf("%s: asked=%v, want %v (%+v)", tc.path, asked, tc.asks, ap.requests())
		}
		if tc.asks && (statErr == nil || !res.IsError) {
			t.Errorf("%s: a denied write happened: %+v", tc.path, res)
		}
		if !tc.asks && statErr != nil {
			t.Errorf("%s: an ordinary write failed: %+v", tc.path, res)
		}
	}
	// Reads are not the home rule's business, and a cwd inside the home
	// (not containing it) is writable throughout.
	env := &Env{Cwd: filepath.Join(home, "project"), Approver: failApprover{t}, UserHome: home}
	if res := run(t, env, "write_file", map[string]any{"path": ".env", "content": "x"}); res.IsError {
		t.Errorf("cwd inside the home: %+v", res)
	}
}
