package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func newEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := New(filepath.Join(t.TempDir(), "checkpoints"))
	if errors.Is(err, ErrNoGit) {
		t.Skip("no git on this machine")
	}
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func write(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func exists(dir, rel string) bool {
	_, err := os.Lstat(filepath.Join(dir, rel))
	return err == nil
}

// treeHash digests every file (path, mode, bytes) under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel + "\x00" + fi.Mode().String() + "\x00"))
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func snap(t *testing.T, e *Engine, cwd string, max int64) Snapshot {
	t.Helper()
	s, err := e.Snapshot(context.Background(), cwd, max)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func state(s Snapshot, gateway bool) State {
	return State{Commit: s.Commit, Skipped: s.Skipped, Gateway: gateway}
}

// agentTurn changes the tree as an agent turn would: an edit, a removal, a
// move, a new file and a new directory.
func agentTurn(t *testing.T, cwd string) {
	t.Helper()
	write(t, cwd, "a.txt", "agent edit\n")
	if err := os.Remove(filepath.Join(cwd, "d", "x.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(cwd, "m.txt"), filepath.Join(cwd, "moved.txt")); err != nil {
		t.Fatal(err)
	}
	write(t, cwd, "new.txt", "new\n")
	write(t, cwd, "newdir/deep/f.txt", "deep\n")
}

func seed(t *testing.T, cwd string) {
	t.Helper()
	write(t, cwd, "a.txt", "original a\n")
	write(t, cwd, "d/x.txt", "original x\n")
	write(t, cwd, "m.txt", "to be moved\n")
}

func TestRewindNonGitCwd(t *testing.T) {
	t.Parallel()
	e, cwd := newEngine(t), t.TempDir()
	seed(t, cwd)
	before := treeHash(t, cwd)
	s := snap(t, e, cwd, 0)
	if s.Files != 3 {
		t.Errorf("files = %d, want 3", s.Files)
	}
	agentTurn(t, cwd)
	l := snap(t, e, cwd, 0)
	now := snap(t, e, cwd, 0)
	p, err := e.Plan(context.Background(), cwd, []State{state(s, false), state(l, true), state(now, false)})
	if err != nil {
		t.Fatal(err)
	}
	want := Plan{
		Restore:   []string{"a.txt", "d/x.txt", "m.txt"},
		Remove:    []string{"moved.txt", "new.txt", "newdir/deep/f.txt"},
		Conflicts: []string{},
	}
	if d := cmp.Diff(want, p); d != "" {
		t.Fatalf("plan (-want +got):\n%s", d)
	}
	if err := e.Restore(context.Background(), cwd, s.Commit, p.Restore, p.Remove); err != nil {
		t.Fatal(err)
	}
	if got := treeHash(t, cwd); got != before {
		t.Errorf("tree after rewind differs from the checkpoint (newdir left? %v)", exists(cwd, "newdir"))
	}
	// A re-run (crash recovery) changes nothing and fails nothing.
	if err := e.Restore(context.Background(), cwd, s.Commit, p.Restore, p.Remove); err != nil {
		t.Fatal(err)
	}
	if got := treeHash(t, cwd); got != before {
		t.Error("a second Restore changed the tree")
	}
	if exists(cwd, ".git") {
		t.Error("a .git appeared in a cwd that was not a repository")
	}
}

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestUserRepositoryUntouched(t *testing.T) {
	t.Parallel()
	e, cwd := newEngine(t), t.TempDir()
	seed(t, cwd)
	gitCmd(t, cwd, "init", "-q")
	gitCmd(t, cwd, "add", "a.txt")
	gitCmd(t, cwd, "commit", "-qm", "user commit")
	write(t, cwd, "a.txt", "staged change\n")
	gitCmd(t, cwd, "add", "a.txt")
	dotgit := treeHash(t, filepath.Join(cwd, ".git"))
	status := gitCmd(t, cwd, "status", "--porcelain")

	s := snap(t, e, cwd, 0)
	agentTurn(t, cwd)
	l := snap(t, e, cwd, 0)
	now := snap(t, e, cwd, 0)
	p, err := e.Plan(context.Background(), cwd, []State{state(s, false), state(l, true), state(now, false)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Restore(context.Background(), cwd, s.Commit, p.Restore, p.Remove); err != nil {
		t.Fatal(err)
	}
	if got := treeHash(t, filepath.Join(cwd, ".git")); got != dotgit {
		t.Error("the user's .git changed")
	}
	if got := gitCmd(t, cwd, "status", "--porcelain"); got != status {
		t.Errorf("git status changed:\nbefore %q\nafter  %q", status, got)
	}
	if got := read(t, cwd, "a.txt"); got != "staged change\n" {
		t.Errorf("a.txt = %q", got)
	}
}

func TestIgnoredAndBigFiles(t *testing.T) {
	t.Parallel()
	e, cwd := newEngine(t), t.TempDir()
	write(t, cwd, ".gitignore", "build/\n*.log\n")
	write(t, cwd, "src.go", "package x\n")
	s := snap(t, e, cwd, 100)
	write(t, cwd, "build/out.bin", "artifact")
	write(t, cwd, "run.log", "log")
	write(t, cwd, "big.dat", strings.Repeat("x", 101))
	write(t, cwd, "src.go", "package y\n")
	l := snap(t, e, cwd, 100)
	if d := cmp.Diff([]string{"big.dat"}, l.Skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	if l.Files != 2 {
		t.Errorf("files = %d, want 2 (.gitignore, src.go)", l.Files)
	}
	now := snap(t, e, cwd, 100)
	p, err := e.Plan(context.Background(), cwd, []State{state(s, false), state(l, true), state(now, false)})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Plan{Restore: []string{"src.go"}, Remove: []string{}, Conflicts: []string{}}, p); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	if err := e.Restore(context.Background(), cwd, s.Commit, p.Restore, p.Remove); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"build/out.bin", "run.log", "big.dat"} {
		if !exists(cwd, f) {
			t.Errorf("%s (ignored or skipped) was removed", f)
		}
	}
}

func TestBigFileOnceSmallIsAConflict(t *testing.T) {
	t.Parallel()
	e, cwd := newEngine(t), t.TempDir()
	write(t, cwd, "data", "small")
	s := snap(t, e, cwd, 100)
	write(t, cwd, "data", strings.Repeat("y", 200))
	l := snap(t, e, cwd, 100)
	now := snap(t, e, cwd, 100)
	p, err := e.Plan(context.Background(), cwd, []State{state(s, false), state(l, true), state(now, false)})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"data"}, p.Conflicts); d != "" {
		t.Errorf("conflicts (-want +got):\n%s", d)
	}
}

func TestUserEditsAreConflicts(t *testing.T) {
	t.Parallel()
	e, cwd := newEngine(t), t.TempDir()
	seed(t, cwd)
	s1 := snap(t, e, cwd, 0)
	write(t, cwd, "a.txt", "agent turn 1\n")
	l1 := snap(t, e, cwd, 0)
	write(t, cwd, "user.txt", "the user's own work between turns\n") // between turns
	s2 := snap(t, e, cwd, 0)
	write(t, cwd, "d/x.txt", "agent turn 2\n")
	l2 := snap(t, e, cwd, 0)
	write(t, cwd, "d/x.txt", "the user edits after the agent\n") // after the last turn
	now := snap(t, e, cwd, 0)
	history := []State{state(s1, false), state(l1, true), state(s2, false), state(l2, true), state(now, false)}
	p, err := e.Plan(context.Background(), cwd, history)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"d/x.txt", "user.txt"}, p.Conflicts); d != "" {
		t.Errorf("conflicts (-want +got):\n%s", d)
	}
	// Rewinding only the last turn: user.txt is in that checkpoint, only
	// d/x.txt conflicts.
	p2, err := e.Plan(context.Background(), cwd, []State{state(s2, false), state(l2, true), state(now, false)})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Plan{Restore: []string{"d/x.txt"}, Remove: []string{}, Conflicts: []string{"d/x.txt"}}, p2); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	// A turn without its ledger (the daemon died during it): everything it
	// changed is unknown, so a conflict.
	p3, err := e.Plan(context.Background(), cwd, []State{state(s2, false), state(now, false)})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"d/x.txt"}, p3.Conflicts); d != "" {
		t.Errorf("no ledger: conflicts (-want +got):\n%s", d)
	}
}

func TestDropAndSize(t *testing.T) {
	t.Parallel()
	e, cwd := newEngine(t), t.TempDir()
	write(t, cwd, "blob", strings.Repeat("random-ish content ", 50000))
	s := snap(t, e, cwd, 0)
	ctx := context.Background()
	if err := e.Keep(ctx, cwd, "c1/snap", s.Commit); err != nil {
		t.Fatal(err)
	}
	before, err := e.Size()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(cwd, "blob")); err != nil {
		t.Fatal(err)
	}
	_ = snap(t, e, cwd, 0) // the index forgets the blob
	if err := e.Drop(ctx, cwd, []string{"c1/snap"}); err != nil {
		t.Fatal(err)
	}
	after, err := e.Size()
	if err != nil {
		t.Fatal(err)
	}
	if after >= before {
		t.Errorf("size after drop %d, before %d: want smaller", after, before)
	}
	// Dropping in a cwd that is gone still works.
	if err := e.Drop(ctx, filepath.Join(t.TempDir(), "gone"), []string{"x"}); err != nil {
		t.Fatal(err)
	}
}

func TestVanishedCwd(t *testing.T) {
	t.Parallel()
	e := newEngine(t)
	_, err := e.Snapshot(context.Background(), filepath.Join(t.TempDir(), "nope"), 0)
	if !errors.Is(err, ErrNoCwd) {
		t.Fatalf("err = %v, want ErrNoCwd", err)
	}
}
