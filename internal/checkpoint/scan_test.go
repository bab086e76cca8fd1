package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// treeOf is the tree id of a snapshot commit (ids are content addresses:
// equal trees have equal ids in any repository).
func treeOf(t *testing.T, e *Engine, cwd, commit string) string {
	t.Helper()
	r := &repo{e: e, dir: e.repoDir(cwd), cwd: cwd}
	out, err := r.git(context.Background(), nil, "rev-parse", commit+"^{tree}")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestIncrementalSnapshotIsAFullOne: after each kind of change, a snapshot
// made from the persistent index (stat data, named paths) records the same
// tree, count and skipped list as a first snapshot of the same tree, in
// which git looks at everything.
func TestIncrementalSnapshotIsAFullOne(t *testing.T) {
	t.Parallel()
	e, cwd := newEngine(t), t.TempDir()
	write(t, cwd, ".gitignore", "*.log\n")
	write(t, cwd, "a.txt", "aaaa\n")
	write(t, cwd, "d/b.txt", "bbbb\n")
	write(t, cwd, "d/e/c.txt", "cccc\n")
	write(t, cwd, "empty", "")
	write(t, cwd, "grows", "small")
	write(t, cwd, "x.log", "ignored\n")
	steps := []struct {
		name   string
		change func()
	}{
		{"nothing", func() {}},
		{"same size, same moment", func() { write(t, cwd, "a.txt", "AAAA\n") }},
		{"removed", func() { os.Remove(filepath.Join(cwd, "d/b.txt")) }},
		{"new file, new dirs", func() { write(t, cwd, "n/m/new.txt", "new\n") }},
		{"executable", func() { os.Chmod(filepath.Join(cwd, "a.txt"), 0o755) }},
		{"file to symlink", func() {
			os.Remove(filepath.Join(cwd, "empty"))
			os.Symlink("a.txt", filepath.Join(cwd, "empty"))
		}},
		{"directory to file", func() {
			os.RemoveAll(filepath.Join(cwd, "d/e"))
			write(t, cwd, "d/e", "now a file\n")
		}},
		{"unignored", func() { write(t, cwd, ".gitignore", "*.tmp\n") }},
		{"tracked grows past the limit", func() { write(t, cwd, "grows", strings.Repeat("g", 200)) }},
		{"untracked above the limit", func() { write(t, cwd, "big.bin", strings.Repeat("b", 300)) }},
		{"nested repository", func() {
			sub := mkdir(t, cwd, "sub")
			gitCmd(t, sub, "init", "-q")
			write(t, cwd, "sub/f", "f\n")
			gitCmd(t, sub, "add", "f")
			gitCmd(t, sub, "commit", "-q", "-m", "x")
		}},
		{"nested repository moves on", func() {
			write(t, cwd, "sub/f", "g\n")
			gitCmd(t, filepath.Join(cwd, "sub"), "commit", "-q", "-a", "-m", "y")
		}},
		{"many", func() {
			for i := range 300 {
				write(t, cwd, filepath.Join("many", strings.Repeat("m", i%7+1), "f"+string(rune('a'+i%26))+strconv.Itoa(i)), "x")
			}
		}},
		{"back to small", func() { write(t, cwd, "grows", "s") }},
	}
	for _, s := range steps {
		s.change()
		got := snap(t, e, cwd, 100)
		fresh := newEngine(t)
		want := snap(t, fresh, cwd, 100)
		if g, w := treeOf(t, e, cwd, got.Commit), treeOf(t, fresh, cwd, want.Commit); g != w {
			t.Errorf("%s: incremental tree %s, full %s", s.name, g, w)
		}
		if got.Files != want.Files || strings.Join(got.Skipped, ",") != strings.Join(want.Skipped, ",") {
			t.Errorf("%s: incremental %d files skipped %v, full %d skipped %v", s.name, got.Files, got.Skipped, want.Files, want.Skipped)
		}
	}
}

func mkdir(t *testing.T, dir, rel string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestParseIndexMatchesGit: the entries read from the shadow index are the
// paths git lists.
func TestParseIndexMatchesGit(t *testing.T) {
	t.Parallel()
	e, cwd := newEngine(t), t.TempDir()
	write(t, cwd, "a", "1")
	write(t, cwd, "b/"+strings.Repeat("long-name-", 20)+"/"+strings.Repeat("x", 200), "2")
	write(t, cwd, "b/c", "3")
	snap(t, e, cwd, 0)
	r := &repo{e: e, dir: e.repoDir(cwd), cwd: cwd}
	b, err := os.ReadFile(r.index())
	if err != nil {
		t.Fatal(err)
	}
	entries, ok := parseIndex(b)
	if !ok {
		t.Fatal("the shadow index was not readable")
	}
	var got []string
	for _, en := range entries {
		got = append(got, en.path)
	}
	out, _ := r.git(context.Background(), nil, "ls-files", "-z")
	if g, w := strings.Join(got, "\x00"), strings.TrimSuffix(string(out), "\x00"); g != w {
		t.Errorf("parsed %q, git lists %q", g, w)
	}
	if changed, ok := r.changedByStat(); !ok || len(changed) != 0 {
		t.Errorf("right after a snapshot: changed %v (ok %v), want none", changed, ok)
	}
	if _, ok := parseIndex(b[:len(b)/2]); ok {
		t.Error("a truncated index was read")
	}
}
