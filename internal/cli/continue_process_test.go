package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestChatContinueResumesNewestOfCwd: `chat --continue` attaches the
// terminal UI to the newest session of the directory, not another's.
func TestChatContinueResumesNewestOfCwd(t *testing.T) {
	t.Parallel()
	f := streaming(t)
	f.Start()
	here, elsewhere := t.TempDir(), t.TempDir()
	file := filepath.Join(t.TempDir(), "t.json")
	for _, c := range []struct{ cwd, text, req string }{
		{here, "older in here", "c1"}, {elsewhere, "newest elsewhere", "c3"}, {here, "newest in here", "c2"},
	} {
		body := fmt.Sprintf(`{"format":"hermes-transcript-v1","messages":[{"row_id":1,"role":"user","content":%q}]}`, c.text)
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := hermes(t, f, "", "sessions", "import", file, "--cwd", c.cwd, "--request-id", c.req); r.code != 0 {
			t.Fatalf("import: %d %q", r.code, r.err)
		}
	}
	p := newPane(t, fmt.Sprintf("%s --home %s chat --no-autostart --continue --cwd %s", f.Bin, f.Home, here))
	p.await("[connected]")
	p.await("newest in here")
	p.send("/quit", "Enter")
}
