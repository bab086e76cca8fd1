package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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
	w, err := r.scan(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	big := oversized(w, maxFileBytes)
	if err := r.add(ctx, w, big); err != nil {
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
	files, err := r.files(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	return Snapshot{Commit: string(bytes.TrimSpace(commit)), Files: files, Skipped: big}, nil
}

const (
	// explicitMax is the most changed paths add is given by name; with
	// more, add looks at the whole tree (matching thousands of pathspecs
	// against every path costs more than the stat calls it saves).
	explicitMax = 256
	// bulkMin is the fewest new files add writes into one pack instead of
	// one loose object file each (core.bigFileThreshold=1 sends every blob
	// through git's bulk check-in): a fresh 10,000-file tree is then two
	// files created instead of 10,000. Fewer changes stay loose, so
	// everyday snapshots do not pile up small packs between collections.
	bulkMin = 128
)

// add stages the work tree as `git add -A` does, without the files in big.
// When the index's stat data told exactly which paths changed, add is given
// those paths by name and reads nothing else of the tree (nothing at all
// when none changed); otherwise it looks at the whole tree.
func (r *repo) add(ctx context.Context, w worktree, big []string) error {
	var paths []string
	for _, p := range slices.Concat(w.untracked, w.changed) {
		p = strings.TrimSuffix(p, "/") // a nested repository is added as a gitlink
		if !slices.Contains(big, p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	if w.exact && len(paths) == 0 {
		return nil
	}
	var config []string
	if len(paths) >= bulkMin {
		config = append(config, "core.bigFileThreshold=1")
	}
	if w.exact && len(paths) <= explicitMax {
		err := r.addPacked(ctx, config, literal(paths))
		var ge *gitError
		if err == nil || !(errors.As(err, &ge) && strings.Contains(ge.stderr, "did not match any files")) {
			return err
		}
		// A path went away since the scan: look at the whole tree.
	}
	specs := []string{"."}
	for _, p := range big {
		specs = append(specs, ":(exclude,literal)"+p)
	}
	return r.addPacked(ctx, config, specs)
}

// addPacked is addSpecs, and once more without config when it fails with
// it: streamed into a pack, a file that changes size while git reads it
// stops the whole add, where a loose object only leaves that file out.
func (r *repo) addPacked(ctx context.Context, config, specs []string) error {
	err := r.addSpecs(ctx, config, specs)
	if err != nil && len(config) > 0 && ctx.Err() == nil {
		return r.addSpecs(ctx, nil, specs)
	}
	return err
}

func (r *repo) addSpecs(ctx context.Context, config, specs []string) error {
	// --ignore-errors: an unreadable file is left out, not the whole
	// snapshot (git still exits non-zero, saying "adding files failed").
	_, err := r.gitWith(ctx, nulJoin(specs), config,
		"add", "-A", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul")
	var ge *gitError
	if err != nil && errors.As(err, &ge) && strings.Contains(ge.stderr, "adding files failed") {
		return nil
	}
	return err
}

// oversized lists the files git would add that are above max bytes: the
// untracked, not ignored ones and the tracked ones that changed.
func oversized(w worktree, max int64) []string {
	if max <= 0 {
		return nil
	}
	var big []string
	for p, size := range w.sizes {
		if size > max {
			big = append(big, p)
		}
	}
	slices.Sort(big)
	return big
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

// files is the number of paths in the index, which write-tree has just
// turned into the snapshot: the entry count of the index header, read
// without another git process. An index whose header this does not know
// is counted by git.
func (r *repo) files(ctx context.Context) (int, error) {
	if n, ok := indexEntries(r.index()); ok {
		return n, nil
	}
	out, err := r.git(ctx, nil, "ls-files", "-z")
	if err != nil {
		return 0, err
	}
	return bytes.Count(out, []byte{0}), nil
}

// indexEntries reads the entry count from the header of a git index:
// "DIRC", a 4-byte version (2, 3 or 4), a 4-byte entry count, big-endian.
// The shadow index has one entry per path: no merge stages, no sparse
// directories, no split index (none of these is ever configured).
func indexEntries(path string) (int, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var h [12]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || string(h[:4]) != "DIRC" {
		return 0, false
	}
	if v := binary.BigEndian.Uint32(h[4:8]); v < 2 || v > 4 {
		return 0, false
	}
	return int(binary.BigEndian.Uint32(h[8:12])), true
}
