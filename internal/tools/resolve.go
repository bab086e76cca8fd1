package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// maxSymlinks is the kernel's limit (MAXSYMLINKS) on links followed while
// resolving one path; past it the path is refused as a loop.
const maxSymlinks = 40

// errSymlinkLoop: the path has more than maxSymlinks links to follow,
// almost always a loop. Refused; there is nothing to ask about.
var errSymlinkLoop = errors.New("too many levels of symbolic links (a symlink loop?)")

// unresolvedError is a /proc magic link (fd/N, root, cwd, exe, …) whose
// target text is not the file the kernel would open: a pipe, a deleted
// file, another mount namespace. The path can only be used as given, so
// it needs consent; Path is the prefix up to and including the link.
type unresolvedError struct {
	Path   string
	Target string // what readlink said
}

func (e *unresolvedError) Error() string {
	return fmt.Sprintf("%s points to %q, which cannot be resolved to a checkable path", e.Path, e.Target)
}

// resolvePath returns the real absolute location of abs (an absolute path
// as the model wrote it, not yet cleaned): symlinks are followed in every
// component, ".." is applied to the real parent (as the kernel does), /proc
// magic links are replaced by their target when it is verifiably the same
// file, and a missing tail (a file to create) is appended to its longest
// existing prefix. A trailing slash requires a directory when the path
// exists. Errors: errSymlinkLoop, *unresolvedError, or a filesystem error.
func resolvePath(abs string) (string, error) {
	if !filepath.IsAbs(abs) {
		return "", fmt.Errorf("%q is not absolute", abs)
	}
	real, exists, err := walkPath(abs)
	if err != nil {
		return "", err
	}
	if exists && strings.HasSuffix(abs, "/") && abs != "/" {
		if st, err := os.Stat(real); err == nil && !st.IsDir() {
			return "", fmt.Errorf("%s: %w", real, unix.ENOTDIR)
		}
	}
	return real, nil
}

// walkPath resolves abs one component at a time; exists is false when a
// missing tail was appended.
func walkPath(abs string) (real string, exists bool, err error) {
	cur := "/"
	pending := splitPath(abs)
	links := 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		if c == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		st, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return missingTail(next, pending)
		}
		if err != nil {
			return "", false, err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxSymlinks {
			return "", false, fmt.Errorf("%s: %w", abs, errSymlinkLoop)
		}
		target, err := linkTarget(cur, next)
		if err != nil {
			return "", false, err
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		pending = append(splitPath(target), pending...)
	}
	return cur, true, nil
}

// missingTail appends the components after the first missing one. A ".."
// among them would climb out of a directory that does not exist (the
// kernel fails such a path); it is refused rather than cleaned lexically,
// since the lexical result could cross a symlink unresolved.
func missingTail(missing string, rest []string) (string, bool, error) {
	for _, c := range rest {
		if c == ".." {
			return "", false, fmt.Errorf("%s: %w", missing, fs.ErrNotExist)
		}
	}
	return filepath.Join(append([]string{missing}, rest...)...), false, nil
}

// splitPath splits p into its non-empty components other than ".".
func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// linkTarget reads the symlink link (in directory dir). On procfs the text
// of a magic link (fd/N, root, cwd, thread-self) is trusted only when it
// names the very file the link opens: same device and inode, read on one
// OS thread so that thread-self means the same thread for both.
func linkTarget(dir, link string) (string, error) {
	if !onProcfs(dir) {
		return os.Readlink(link)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	target, err := os.Readlink(link)
	if err != nil {
		return "", err
	}
	named := target
	if !filepath.IsAbs(named) {
		named = filepath.Join(dir, named)
	}
	via, err1 := os.Stat(link)
	st, err2 := os.Stat(named)
	if err1 != nil || err2 != nil || !os.SameFile(via, st) {
		return "", &unresolvedError{Path: link, Target: target}
	}
	return target, nil
}

// onProcfs reports whether dir is on a proc filesystem.
func onProcfs(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Type == unix.PROC_SUPER_MAGIC
}
