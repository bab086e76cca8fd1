package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Change is one path that differs between two snapshots.
type Change struct {
	Path string // relative, slash-separated
	// Status is 'A' (only in the second snapshot), 'D' (only in the first),
	// 'M' (content or mode changed) or 'T' (type changed, e.g. file ↔ symlink).
	Status byte
}

// gitlinkMode is a nested repository's entry; its contents are not ours.
const gitlinkMode = "160000"

// Changes lists the paths that differ between two snapshot commits of cwd,
// sorted; nested repositories (gitlinks) are left out.
func (e *Engine) Changes(ctx context.Context, cwd, from, to string) ([]Change, error) {
	if from == to {
		return nil, nil
	}
	defer e.lock(cwd)()
	dir := e.repoDir(cwd)
	r := &repo{e: e, dir: dir, cwd: dir} // diff-tree reads no work tree
	out, err := r.git(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--raw", from, to)
	if err != nil {
		return nil, err
	}
	return parseRaw(out)
}

// parseRaw reads `git diff-tree -r -z --raw` output:
// ":<mode> <mode> <sha> <sha> <status>\0<path>\0" per entry.
func parseRaw(out []byte) ([]Change, error) {
	fields := bytes.Split(out, []byte{0})
	var cs []Change
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		if len(meta) != 5 || meta[4] == "" {
			return nil, fmt.Errorf("diff-tree: unexpected entry %q", fields[i])
		}
		if meta[0] == gitlinkMode || meta[1] == gitlinkMode {
			continue
		}
		cs = append(cs, Change{Path: string(fields[i+1]), Status: meta[4][0]})
	}
	slices.SortFunc(cs, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return cs, nil
}

// Restore makes the paths of cwd what they are in source: remove are
// deleted (they are not in source), restore are written from source.
// Every step can run again: a restore interrupted by a crash is completed
// by calling Restore with the same arguments.
func (e *Engine) Restore(ctx context.Context, cwd, source string, restore, remove []string) error {
	defer e.lock(cwd)()
	r, err := e.open(ctx, cwd)
	if err != nil {
		return err
	}
	for _, p := range remove {
		if err := removeFile(cwd, p); err != nil {
			return err
		}
	}
	if len(restore) == 0 {
		return nil
	}
	_, err = r.git(ctx, nulJoin(literal(restore)), "restore", "--source="+source, "--worktree",
		"--pathspec-from-file=-", "--pathspec-file-nul")
	return err
}

// removeFile deletes cwd/p (a file or symlink, never a directory) and then
// its parent directories up to cwd while they are empty. A path under a
// symlinked directory is refused: the link may lead out of cwd.
func removeFile(cwd, p string) error {
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return fmt.Errorf("remove %q: not a path inside the working directory", p)
	}
	if err := noSymlinkParents(cwd, p); err != nil {
		return err
	}
	full := filepath.Join(cwd, filepath.FromSlash(p))
	fi, err := os.Lstat(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// already gone (a re-run)
	case err != nil:
		return err
	case fi.IsDir():
		return nil // a directory appeared where the file was: not ours to delete
	default:
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
		err := os.Remove(filepath.Join(cwd, filepath.FromSlash(dir)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOTDIR) {
				break
			}
			return err
		}
	}
	return nil
}

func noSymlinkParents(cwd, p string) error {
	for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
		fi, err := os.Lstat(filepath.Join(cwd, filepath.FromSlash(dir)))
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("remove %q: %s is a symlink", p, dir)
		}
	}
	return nil
}
