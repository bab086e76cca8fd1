package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Snapshot is one recorded state of a work tree.
type Snapshot struct {
	Commit  string   // the shadow commit holding the tree
	Files   int      // files in the snapshot
	Skipped []string // paths (relative, slash-separated) above the size limit, not in the snapshot
}

// Snapshot records the work tree cwd as a commit of its shadow repository,
// without files above maxFileBytes (0 = no limit), which it lists. The
// commit is unreferenced until Keep names it. The shadow index persists
// between snapshots, so git re-reads only files whose stat data changed.
func (e *Engine) Snapshot(ctx context.Context, cwd string, maxFileBytes int64) (Snapshot, error) {
	defer e.lock(cwd)()
	r, err := e.open(ctx, cwd)
	if err != nil {
		return Snapshot{}, err
	}
	return r.snapshot(ctx, maxFileBytes)
}

func (r *repo) snapshot(ctx context.Context, maxFileBytes int64) (Snapshot, error) {
	big, err := r.oversized(ctx, maxFileBytes)
	if err != nil {
		return Snapshot{}, err
	}
	specs := []string{"."}
	for _, p := range big {
		specs = append(specs, ":(exclude,literal)"+p)
	}
	// --ignore-errors: an unreadable file is left out, not the whole
	// snapshot (git still exits non-zero, saying "adding files failed").
	_, err = r.git(ctx, nulJoin(specs), "add", "-A", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul")
	var ge *gitError
	if err != nil && !(errors.As(err, &ge) && strings.Contains(ge.stderr, "adding files failed")) {
		return Snapshot{}, err
	}
	if len(big) > 0 {
		// A file tracked while it was small leaves the index once it is big.
		if _, err := r.git(ctx, nulJoin(literal(big)), "rm", "-q", "-f", "--cached", "--ignore-unmatch",
			"--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return Snapshot{}, err
		}
	}
	tree, err := r.git(ctx, nil, "write-tree")
	if err != nil {
		return Snapshot{}, err
	}
	commit, err := r.git(ctx, nil, "commit-tree", "-m", "hermes checkpoint", string(bytes.TrimSpace(tree)))
	if err != nil {
		return Snapshot{}, err
	}
	files, err := r.git(ctx, nil, "ls-files", "-z")
	if err != nil {
		return Snapshot{}, err
	}
	return Snapshot{Commit: string(bytes.TrimSpace(commit)), Files: bytes.Count(files, []byte{0}), Skipped: big}, nil
}

// oversized lists the files git would add that are above max bytes: the
// untracked, not ignored ones and the tracked ones that changed.
func (r *repo) oversized(ctx context.Context, max int64) ([]string, error) {
	if max <= 0 {
		return nil, nil
	}
	out, err := r.git(ctx, nil, "ls-files", "-z", "--others", "--modified", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	var big []string
	for _, p := range nulSplit(out) {
		fi, err := os.Lstat(filepath.Join(r.cwd, filepath.FromSlash(p)))
		if err == nil && fi.Mode().IsRegular() && fi.Size() > max {
			big = append(big, p)
		}
	}
	slices.Sort(big)
	return slices.Compact(big), nil
}

func literal(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = ":(literal)" + p
	}
	return out
}

// Keep names commit under refs/hermes/<name> so it survives garbage
// collection until Drop.
func (e *Engine) Keep(ctx context.Context, cwd, name, commit string) error {
	defer e.lock(cwd)()
	r := &repo{e: e, dir: e.repoDir(cwd), cwd: cwd}
	_, err := r.git(ctx, nil, "update-ref", refPrefix+name, commit)
	return err
}

// Drop deletes the named refs of cwd's repository and then every object no
// remaining ref reaches. A repository that does not exist is fine.
func (e *Engine) Drop(ctx context.Context, cwd string, names []string) error {
	defer e.lock(cwd)()
	dir := e.repoDir(cwd)
	// Neither update-ref nor gc reads the work tree, which may be gone.
	r := &repo{e: e, dir: dir, cwd: dir}
	if _, err := os.Stat(filepath.Join(r.dir, "HEAD")); err != nil {
		return nil
	}
	var in strings.Builder
	for _, n := range names {
		fmt.Fprintf(&in, "delete %s%s\n", refPrefix, n)
	}
	if _, err := r.git(ctx, []byte(in.String()), "update-ref", "--stdin"); err != nil {
		return err
	}
	_, err := r.git(ctx, nil, "gc", "-q", "--prune=now")
	return err
}

// Size is the bytes every shadow repository takes on disk.
func (e *Engine) Size() (int64, error) {
	var n int64
	err := filepath.WalkDir(e.root, func(_ string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n, err
}
