package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// realTempDir is t.TempDir with its own symlinks resolved, so expected
// paths compare as strings.
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestResolvePath(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	cwd, out := filepath.Join(root, "cwd"), filepath.Join(root, "out")
	writeFile(t, filepath.Join(cwd, "file.txt"), "in")
	writeFile(t, filepath.Join(cwd, "sub/x"), "")
	writeFile(t, filepath.Join(out, "deep/secret"), "s")
	symlink(t, filepath.Join(out, "deep"), filepath.Join(cwd, "esc"))       // inside cwd, pointing out
	symlink(t, "../out/deep", filepath.Join(cwd, "rel"))                    // relative form
	symlink(t, "loop2", filepath.Join(cwd, "loop1"))                        // a two-link loop
	symlink(t, "loop1", filepath.Join(cwd, "loop2"))                        //
	symlink(t, "self", filepath.Join(cwd, "self"))                          // a one-link loop
	symlink(t, filepath.Join(out, "nothere"), filepath.Join(cwd, "dangle")) // dangling
	f, err := os.Open(filepath.Join(out, "deep/secret"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	in := func(p string) string { return cwd + "/" + p }
	tests := []struct {
		name, path, want string
		wantErr          error // errors.Is; nil = no error
		unresolved       bool
	}{
		{"plain", in("file.txt"), filepath.Join(cwd, "file.txt"), nil, false},
		{"missing file in existing dir", in("new.txt"), filepath.Join(cwd, "new.txt"), nil, false},
		{"missing dirs", in("a/b/c.txt"), filepath.Join(cwd, "a/b/c.txt"), nil, false},
		{"dot dot lexical", in("sub/../file.txt"), filepath.Join(cwd, "file.txt"), nil, false},
		{"dot dot out", in("../out/deep/secret"), filepath.Join(out, "deep/secret"), nil, false},
		{"symlink out", in("esc/secret"), filepath.Join(out, "deep/secret"), nil, false},
		{"relative symlink out", in("rel/secret"), filepath.Join(out, "deep/secret"), nil, false},
		{"dot dot through a symlink", in("esc/../deep/secret"), filepath.Join(out, "deep/secret"), nil, false},
		{"dot dot through a symlink leaves cwd", in("esc/.."), out, nil, false},
		{"new file through a symlink", in("esc/new"), filepath.Join(out, "deep/new"), nil, false},
		{"dangling symlink", in("dangle"), filepath.Join(out, "nothere"), nil, false},
		{"loop", in("loop1"), "", errSymlinkLoop, false},
		{"loop below", in("loop1/x"), "", errSymlinkLoop, false},
		{"self loop", in("self"), "", errSymlinkLoop, false},
		{"missing dir then dot dot", in("nodir/../file.txt"), "", os.ErrNotExist, false},
		{"file as a directory", in("file.txt/x"), "", unix.ENOTDIR, false},
		{"trailing slash dir", in("sub/"), filepath.Join(cwd, "sub"), nil, false},
		{"trailing slash file", in("file.txt/"), "", unix.ENOTDIR, false},
		{"trailing slash symlink", in("esc/"), filepath.Join(out, "deep"), nil, false},
		{"double slashes", cwd + "//sub//x", filepath.Join(cwd, "sub/x"), nil, false},
		{"proc self root", "/proc/self/root" + out + "/deep/secret", filepath.Join(out, "deep/secret"), nil, false},
		{"proc pid root", fmt.Sprintf("/proc/%d/root%s/deep/secret", os.Getpid(), out), filepath.Join(out, "deep/secret"), nil, false},
		{"proc thread-self root", "/proc/thread-self/root" + cwd + "/file.txt", filepath.Join(cwd, "file.txt"), nil, false},
		{"proc self root twice", "/proc/self/root/proc/self/root" + cwd + "/esc/secret", filepath.Join(out, "deep/secret"), nil, false},
		{"dev fd of a file", fmt.Sprintf("/dev/fd/%d", f.Fd()), filepath.Join(out, "deep/secret"), nil, false},
		{"proc self fd of a file", fmt.Sprintf("/proc/self/fd/%d", f.Fd()), filepath.Join(out, "deep/secret"), nil, false},
		{"dev fd of a pipe", fmt.Sprintf("/dev/fd/%d", pr.Fd()), "", nil, true},
	}
	for _, tt := range tests {
		got, err := resolvePath(tt.path)
		var ue *unresolvedError
		switch {
		case tt.unresolved:
			if !errors.As(err, &ue) {
				t.Errorf("%s: resolvePath(%q) = %q, %v; want an unresolvedError", tt.name, tt.path, got, err)
			}
		case tt.wantErr != nil:
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("%s: resolvePath(%q) = %q, %v; want error %v", tt.name, tt.path, got, err, tt.wantErr)
			}
		case err != nil || got != tt.want:
			t.Errorf("%s: resolvePath(%q) = %q, %v; want %q", tt.name, tt.path, got, err, tt.want)
		}
	}
}

// A deleted file's /proc/self/fd link says "<path> (deleted)": not a path
// to trust, whether or not a file of that name exists again.
func TestResolveDeletedFd(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	p := filepath.Join(root, "gone")
	writeFile(t, p, "old")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, "new") // same name, another inode
	got, err := resolvePath(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	var ue *unresolvedError
	if !errors.As(err, &ue) || !strings.Contains(ue.Target, "(deleted)") {
		t.Fatalf("resolvePath = %q, %v; want an unresolvedError naming the deleted file", got, err)
	}
}
