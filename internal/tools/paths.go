package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// absPath resolves p against the session cwd and cleans it.
func absPath(env *Env, p string) (string, error) {
	if p == "" {
		return "", errors.New("path is empty")
	}
	if strings.ContainsRune(p, 0) {
		return "", errors.New("path contains a NUL byte")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(env.Cwd, p)
	}
	return filepath.Clean(p), nil
}

// realPath resolves the symlinks of the longest existing prefix of abs and
// re-appends the rest, so a new file's real location is known.
func realPath(abs string) (string, error) {
	var rest []string
	cur := abs
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// within reports whether p is dir or below it, component by component.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// writablePath resolves p for writing. A real path outside the (real)
// session cwd needs the Approver's consent with command "<verb> <path>";
// res explains a refusal to the model when ok is false.
func writablePath(ctx context.Context, env *Env, verb, p string) (real string, res Result, ok bool, err error) {
	abs, err := absPath(env, p)
	if err != nil {
		return "", failf("invalid path: %v", err), false, nil
	}
	real, err = realPath(abs)
	if err != nil {
		return "", failf("cannot resolve %s: %v", abs, err), false, nil
	}
	cwd, cerr := realPath(filepath.Clean(env.Cwd))
	if cerr == nil && env.Cwd != "" && within(cwd, real) {
		return real, Result{}, true, nil
	}
	res, ok, err = ask(ctx, env, ApprovalRequest{
		Command:     verb + " " + real,
		Description: "writes outside the session directory",
		Pattern:     "write_outside_cwd",
	})
	return real, res, ok, err
}

// writeAtomic replaces path's content via a temp file in the same
// directory and a rename; an existing file keeps its mode.
func writeAtomic(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".hermes-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// isBinary reports a NUL byte in the sample.
func isBinary(sample []byte) bool {
	return bytes.IndexByte(sample, 0) >= 0
}
