package tools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// privateMounts moves the test's goroutine, locked to its OS thread, into
// a private mount namespace, so its bind mounts are seen by nobody else.
// The thread is never unlocked: the runtime discards it when the test's
// goroutine ends, and the namespace with it. Skips when not permitted.
func privateMounts(t *testing.T) {
	t.Helper()
	runtime.LockOSThread()
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		t.Skipf("bind mount cases need a private mount namespace (unshare CLONE_NEWNS: %v; run as root on Linux)", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_PRIVATE|unix.MS_REC, ""); err != nil {
		t.Skipf("cannot make mounts private: %v", err)
	}
}

func bind(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		t.Skipf("bind mount %s on %s: %v", src, dst, err)
	}
	t.Cleanup(func() { unix.Unmount(dst, unix.MNT_DETACH) }) // before TempDir's removal
}

// The same directory reached under two paths is one place: compared by
// device and inode, not by string prefix.
func TestBindMount(t *testing.T) {
	t.Parallel()
	privateMounts(t)
	h := newHome(t)
	alias := filepath.Join(h.root, "alias")
	bind(t, h.profile, filepath.Join(h.proj, "p")) // the profile home, inside the cwd
	bind(t, h.proj, alias)                         // the cwd (with p), also at alias

	res := run(t, h.env(h.proj, failApprover{t}), "read_file", map[string]any{"path": filepath.Join(alias, "main.go")})
	if res.IsError || !strings.Contains(res.Output, "package main") {
		t.Errorf("read of the cwd through its bind mount: %+v", res)
	}

	before := h.snapshot(t)
	for _, args := range []map[string]any{
		{"tool": "write_file", "path": "p/config.yaml", "content": "approvals: {mode: off}\n"},
		{"tool": "write_file", "path": filepath.Join(alias, "p/config.yaml"), "content": "x"},
		{"tool": "patch", "path": "p/.env", "old": "sk", "new": "xx"},
		{"tool": "read_file", "path": "p/.env"},
	} {
		tool := args["tool"].(string)
		delete(args, "tool")
		ap := &fakeApprover{allow: true}
		res := run(t, h.env(h.proj, ap), tool, args)
		if !res.IsError || !strings.Contains(res.Output, "never allowed") || strings.Contains(res.Output, testKey) || len(ap.requests()) != 0 {
			t.Errorf("%s %v through a bind mount: %+v, requests %+v", tool, args["path"], res, ap.requests())
		}
	}
	h.assertUnchanged(t, before, "attacks through a bind mount")

	ap := &fakeApprover{}
	res = run(t, h.env(h.proj, ap), "read_file", map[string]any{"path": "p/skills/s.md"})
	if reqs := ap.requests(); len(reqs) != 1 || !reqs[0].Mandatory || !res.IsError || strings.Contains(res.Output, "skill text") {
		t.Errorf("read in the profile through a bind mount: %+v, requests %+v", res, reqs)
	}
	res = run(t, h.env(h.proj, failApprover{t}), "search_files", map[string]any{"pattern": "sk-|mode|skill"})
	if strings.Contains(res.Output, testKey) || strings.Contains(res.Output, "mode: manual") || strings.Contains(res.Output, "skill text") {
		t.Errorf("search of the cwd entered the bound profile home: %+v", res)
	}
}
