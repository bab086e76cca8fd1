package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	writeFile(t, filepath.Join(cwd, "a.txt"), "one\ntwo\nthree\n")
	writeFile(t, filepath.Join(cwd, "bin"), "x\x00y")
	tests := []struct {
		name    string
		args    any
		want    string
		wantErr bool
	}{
		{"all", map[string]any{"path": "a.txt"}, "     1\tone\n     2\ttwo\n     3\tthree\n", false},
		{"offset limit", map[string]any{"path": "a.txt", "offset": 2, "limit": 1}, "     2\ttwo\n[truncated: more lines follow; read again with offset 3]\n", false},
		{"absolute", map[string]any{"path": filepath.Join(cwd, "a.txt"), "limit": 1}, "     1\tone\n", false},
		{"past end", map[string]any{"path": "a.txt", "offset": 9}, "nothing at offset 9", false},
		{"binary", map[string]any{"path": "bin"}, "binary file", true},
		{"missing", map[string]any{"path": "nope"}, "cannot read", true},
		{"directory", map[string]any{"path": "."}, "is a directory", true},
		{"no path", map[string]any{}, "path is empty", true},
		{"bad type", `{"path": 3}`, "invalid arguments", true},
	}
	for _, tt := range tests {
		res := run(t, &Env{Cwd: cwd}, "read_file", tt.args)
		if !strings.HasPrefix(res.Output, tt.want) && !strings.Contains(res.Output, tt.want) || res.IsError != tt.wantErr {
			t.Errorf("%s: got %+v, want %q (IsError %v)", tt.name, res, tt.want, tt.wantErr)
		}
	}
}

func TestWriteFileInsideCwd(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	env := &Env{Cwd: cwd, Approver: failApprover{t}}
	res := run(t, env, "write_file", map[string]any{"path": "sub/new.txt", "content": "hello"})
	if res.IsError || readString(t, filepath.Join(cwd, "sub/new.txt")) != "hello" {
		t.Fatalf("got %+v", res)
	}
	writeFile(t, filepath.Join(cwd, "x.sh"), "old")
	if err := os.Chmod(filepath.Join(cwd, "x.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, env, "write_file", map[string]any{"path": "x.sh", "content": "new"})
	st, _ := os.Stat(filepath.Join(cwd, "x.sh"))
	if readString(t, filepath.Join(cwd, "x.sh")) != "new" || st.Mode().Perm() != 0o755 {
		t.Fatalf("replace lost content or mode: %v", st.Mode())
	}
	if res := run(t, env, "write_file", map[string]any{"path": "y"}); !res.IsError {
		t.Fatalf("missing content accepted: %+v", res)
	}
}

func TestWriteOutsideCwdAsks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cwd, outside := filepath.Join(root, "project"), filepath.Join(root, "elsewhere")
	for _, d := range []string{cwd, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(cwd, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, path, wantCmd string
	}{
		{"write_file", "../elsewhere/a.txt", "write_file " + filepath.Join(outside, "a.txt")},
		{"write_file", filepath.Join(root, "project-evil/b.txt"), "write_file " + filepath.Join(root, "project-evil/b.txt")},
		{"write_file", "link/c.txt", "write_file " + filepath.Join(outside, "c.txt")},
	}
	for _, tt := range tests {
		for _, allow := range []bool{false, true} {
			ap := &fakeApprover{allow: allow}
			res := run(t, &Env{Cwd: cwd, Approver: ap}, tt.tool, map[string]any{"path": tt.path, "content": "x"})
			reqs := ap.requests()
			if len(reqs) != 1 || reqs[0].Command != tt.wantCmd {
				t.Fatalf("%s allow=%v: requests %+v, want one for %q", tt.path, allow, reqs, tt.wantCmd)
			}
			target := strings.TrimPrefix(tt.wantCmd, "write_file ")
			if exists(target) != allow || res.IsError == allow {
				t.Fatalf("%s allow=%v: result %+v, file exists %v", tt.path, allow, res, exists(target))
			}
			os.Remove(target)
		}
	}
}

func TestPatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
		args          map[string]any
		want          string
		wantErr       bool
	}{
		{"once", "a b a", map[string]any{"old": "b", "new": "B"}, "a B a", false},
		{"none", "a b a", map[string]any{"old": "z", "new": "Z"}, "a b a", true},
		{"ambiguous", "a b a", map[string]any{"old": "a", "new": "A"}, "a b a", true},
		{"all", "a b a", map[string]any{"old": "a", "new": "A", "replace_all": true}, "A b A", false},
		{"delete", "a b a", map[string]any{"old": " b", "new": ""}, "a a", false},
		{"empty old", "a", map[string]any{"old": "", "new": "x"}, "a", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cwd := t.TempDir()
			writeFile(t, filepath.Join(cwd, "f"), tt.content)
			tt.args["path"] = "f"
			res := run(t, &Env{Cwd: cwd}, "patch", tt.args)
			if got := readString(t, filepath.Join(cwd, "f")); got != tt.want || res.IsError != tt.wantErr {
				t.Fatalf("got file %q, result %+v; want %q, IsError %v", got, res, tt.want, tt.wantErr)
			}
		})
	}
}

func TestPatchOutsideCwdAsks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cwd := filepath.Join(root, "p")
	writeFile(t, filepath.Join(root, "out.txt"), "old")
	writeFile(t, filepath.Join(cwd, "keep"), "")
	ap := &fakeApprover{allow: false}
	res := run(t, &Env{Cwd: cwd, Approver: ap}, "patch", map[string]any{"path": "../out.txt", "old": "old", "new": "new"})
	reqs := ap.requests()
	if !res.IsError || len(reqs) != 1 || reqs[0].Command != "patch "+filepath.Join(root, "out.txt") || readString(t, filepath.Join(root, "out.txt")) != "old" {
		t.Fatalf("got %+v, requests %+v", res, reqs)
	}
}

func TestSearchFiles(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	writeFile(t, filepath.Join(cwd, "a.go"), "package a\nfunc Hello() {}\n")
	writeFile(t, filepath.Join(cwd, "sub/b.txt"), "hello world\nbye\n")
	writeFile(t, filepath.Join(cwd, ".git/config"), "hello from git\n")
	writeFile(t, filepath.Join(cwd, "blob.bin"), "hello\x00")
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		wantErr bool
	}{
		{"all", map[string]any{"pattern": "(?i)hello"}, "a.go:2: func Hello() {}\nsub/b.txt:1: hello world", false},
		{"glob", map[string]any{"pattern": "hello", "glob": "*.txt"}, "sub/b.txt:1: hello world", false},
		{"path", map[string]any{"pattern": "bye", "path": "sub"}, "sub/b.txt:2: bye", false},
		{"capped", map[string]any{"pattern": "(?i)hello", "max_results": 1}, "a.go:2: func Hello() {}\n[results capped at 1; narrow the pattern, path or glob]", false},
		{"none", map[string]any{"pattern": "zzz"}, "no matches", false},
		{"bad regexp", map[string]any{"pattern": "("}, "invalid pattern", true},
		{"bad glob", map[string]any{"pattern": "a", "glob": "["}, "invalid glob", true},
	}
	for _, tt := range tests {
		res := run(t, &Env{Cwd: cwd}, "search_files", tt.args)
		if (tt.wantErr && !strings.Contains(res.Output, tt.want)) || (!tt.wantErr && res.Output != tt.want) || res.IsError != tt.wantErr {
			t.Errorf("%s: got %+v, want %q (IsError %v)", tt.name, res, tt.want, tt.wantErr)
		}
	}
}
