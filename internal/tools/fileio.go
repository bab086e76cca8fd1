package tools

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The file tools use a judged path without a second lookup that could land
// elsewhere: a resolved path has no symlink left, so it is opened with
// RESOLVE_NO_SYMLINKS (a component swapped for a link after the check fails
// with ELOOP); writes create and rename inside a directory fd opened the
// same way; the opened file is checked against the hardline once more.

var (
	errIsDir      = errors.New("is a directory")
	errNotRegular = errors.New("is not a regular file")
	errHardline   = errors.New("is a file no tool may touch")
)

// openNoSymlinks opens path (relative to dirfd) following no symlink in
// any component. Kernels without openat2 get O_NOFOLLOW on the last one.
func openNoSymlinks(dirfd int, path string, flags int, mode uint32) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: unix.RESOLVE_NO_SYMLINKS}
	if flags&unix.O_CREAT != 0 {
		how.Mode = uint64(mode)
	}
	fd, err := unix.Openat2(dirfd, path, &how)
	if errors.Is(err, unix.ENOSYS) {
		fd, err = unix.Openat(dirfd, path, flags|unix.O_CLOEXEC|unix.O_NOFOLLOW, mode)
	}
	return fd, err
}

// openRead opens the granted path for reading: regular files only (a FIFO
// or a device is refused without blocking on it).
func (g *grant) openRead() (*os.File, error) {
	flags := unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY
	var fd int
	var err error
	if g.resolved {
		if ownProc(g.path) { // a search walking /proc
			return nil, &fs.PathError{Op: "open", Path: g.path, Err: errHardline}
		}
		fd, err = openNoSymlinks(unix.AT_FDCWD, g.path, flags, 0)
	} else {
		fd, err = unix.Open(g.path, flags|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: g.path, Err: err}
	}
	return g.pol.regularFile(fd, g.path, g.op)
}

// regularFile checks an opened fd (a regular file, not a hardline file)
// and wraps it; it closes fd on refusal.
func (pol policy) regularFile(fd int, name string, op access) (*os.File, error) {
	var st unix.Stat_t
	err := unix.Fstat(fd, &st)
	switch {
	case err != nil:
	case st.Mode&unix.S_IFMT == unix.S_IFDIR:
		err = errIsDir
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		err = errNotRegular
	case pol.hardlineID(op, fileID{uint64(st.Dev), st.Ino}):
		err = errHardline
	default:
		err = unix.SetNonblock(fd, false)
	}
	if err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// write replaces the granted file's content.
func (g *grant) write(data []byte) error {
	if !g.resolved {
		return g.writeInPlace(data)
	}
	return writeAtomic(g.path, data, g.pol)
}

// writeInPlace writes through an approved unresolvable link (a rename
// cannot go through it): truncate and write the file it opens.
func (g *grant) writeInPlace(data []byte) error {
	fd, err := unix.Open(g.path, unix.O_WRONLY|unix.O_CREAT|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return &fs.PathError{Op: "open", Path: g.path, Err: err}
	}
	f, err := g.pol.regularFile(fd, g.path, accessWrite)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.Write(data)
	return err
}

// writeAtomic replaces path (resolved) via a temp file created in its
// directory's fd and a rename there; an existing file keeps its mode, a
// new one is 0644; missing parents are created (0755) one fd at a time.
func writeAtomic(path string, data []byte, pol policy) error {
	dir, base := filepath.Dir(path), filepath.Base(path)
	if base == "/" || base == "." || base == ".." {
		return fmt.Errorf("%s: %w", path, errIsDir)
	}
	dfd, err := openDirAll(dir)
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(dfd)
	mode, err := existingMode(dfd, base, pol)
	if err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	tmp, err := createTemp(dfd, base)
	if err != nil {
		return &fs.PathError{Op: "create", Path: dir, Err: err}
	}
	err = fillTemp(tmp, data, mode)
	if err == nil {
		err = unix.Renameat(dfd, filepath.Base(tmp.Name()), dfd, base)
	}
	if err != nil {
		unix.Unlinkat(dfd, filepath.Base(tmp.Name()), 0)
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// existingMode is the permission of base in dfd (0644 when absent); it
// refuses a non-regular file and a hardline file.
func existingMode(dfd int, base string, pol policy) (uint32, error) {
	var st unix.Stat_t
	err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case errors.Is(err, unix.ENOENT):
		return 0o644, nil
	case err != nil:
		return 0, err
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return 0, errNotRegular
	case pol.hardlineID(accessWrite, fileID{uint64(st.Dev), st.Ino}):
		return 0, errHardline
	}
	return st.Mode & 0o777, nil
}

func createTemp(dfd int, base string) (*os.File, error) {
	for range 10 {
		var b [6]byte
		rand.Read(b[:])
		name := "." + base + ".hermes-" + hex.EncodeToString(b[:])
		fd, err := unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return os.NewFile(uintptr(fd), name), nil
	}
	return nil, unix.EEXIST
}

func fillTemp(f *os.File, data []byte, mode uint32) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(fs.FileMode(mode))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// openDirAll opens the resolved directory dir (O_PATH), creating missing
// components with mkdirat in their parent's fd: a component that turns out
// to be a symlink fails rather than being followed.
func openDirAll(dir string) (int, error) {
	fd, err := openNoSymlinks(unix.AT_FDCWD, dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	parent := filepath.Dir(dir)
	if !errors.Is(err, unix.ENOENT) || parent == dir {
		return fd, err
	}
	pfd, err := openDirAll(parent)
	if err != nil {
		return -1, err
	}
	defer unix.Close(pfd)
	name := filepath.Base(dir)
	if err := unix.Mkdirat(pfd, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, err
	}
	return openNoSymlinks(pfd, name, unix.O_PATH|unix.O_DIRECTORY, 0)
}

// readAll reads the granted file (patch: read, then write back); the
// hardline check on the opened file uses the grant's access.
func (g *grant) readAll() ([]byte, error) {
	f, err := g.openRead()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
