package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// buildView makes the mount namespace's view of the filesystem: all of it
// read-only, the writable roots and a private /tmp and /dev/shm writable,
// the read-only paths read-only again inside them, the hidden paths
// covered, and a proc of the new pid namespace. Hiding comes after the
// writable binds so that a hidden path inside a writable root (the profile
// home inside a cwd that is the user's home) is covered on top of the bind.
// It runs only after enterNamespaces.
func buildView(p Policy) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return step("make / private", err) // nothing we mount leaks to the host
	}
	if err := setattr(unix.AT_FDCWD, "/", unix.MOUNT_ATTR_RDONLY, 0, true); err != nil {
		return step("make / read-only", err)
	}
	roots := append([]string{p.Cwd}, p.WritableRoots...)
	home := homeUnder(p.Home, roots) // resolved while the host's /tmp is still in view
	trees, err := cloneWritable(roots)
	if err != nil {
		return err
	}
	if err := mountTemp(p.TempDir); err != nil {
		return err
	}
	// The home rule (home_linux.go): when a writable root contains the
	// user's home, its top level is made read-only again after that root
	// is attached, and the roots inside the home are attached after it, so
	// that they stay writable on top.
	inHome := func(t tree) bool { return home != "" && within(t.real, home) }
	for _, t := range trees {
		if !inHome(t) {
			if err := t.attach(); err != nil {
				return step("bind writable root "+t.path, err)
			}
		}
	}
	if home != "" {
		if err := lockHomeTop(home, resolveAll(p.HiddenPaths)); err != nil {
			return err
		}
	}
	for _, t := range trees {
		if inHome(t) {
			if err := t.attach(); err != nil {
				return step("bind writable root "+t.path, err)
			}
		}
	}
	return coverView(p, trees)
}

// coverView pins the directories between the writable roots and the
// read-only and hidden paths inside them (pinAncestors, so that none of
// those can be renamed away), makes the read-only paths read-only and
// hides the hidden ones, on top of the writable roots, and mounts the new
// proc.
func coverView(p Policy, trees []tree) error {
	roots := make([]string, 0, len(trees))
	for _, t := range trees {
		roots = append(roots, t.real)
	}
	if err := pinAncestors(resolveAll(append(slices.Clone(p.ReadOnlyPaths), p.HiddenPaths...)), roots); err != nil {
		return err
	}
	for _, r := range p.ReadOnlyPaths {
		if err := bindReadOnly(r); err != nil && !missing(err) {
			return step("bind read-only "+r, err)
		}
	}
	for _, h := range p.HiddenPaths {
		if err := hide(h); err != nil && !missing(err) {
			return step("hide "+h, err)
		}
	}
	err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	return step("mount /proc", err)
}

// enterNamespaces refuses to remount anything unless this process was
// born as Launcher makes it: pid 1 of a new pid namespace inside a user
// namespace that is not the initial one, and that has no uid map yet;
// then it maps the uid and gid (mapSelf). Run by hand as root on the host,
// the helper would otherwise remount the host's / read-only.
func enterNamespaces(uid, gid int) error {
	if os.Getpid() != 1 {
		return step("refuse to build the view", errors.New("not pid 1 of a new pid namespace (start it with sandbox.Launcher)"))
	}
	m, err := os.ReadFile("/proc/self/uid_map")
	if err != nil || len(strings.TrimSpace(string(m))) != 0 {
		return step("refuse to build the view", errors.New("not in a new user namespace"))
	}
	return mapSelf(uid, gid)
}

// mapSelf maps uid and gid to themselves in this process's new user
// namespace, from inside and after the execve, when this process is
// dumpable and its /proc/self files are its own (see sysProcAttr). An
// unprivileged process may map only its own effective ids, once each, and
// the gid only after setgroups is denied; the maps are written in one
// write each, as the kernel requires.
func mapSelf(uid, gid int) error {
	for _, w := range []struct{ file, content string }{
		{"uid_map", fmt.Sprintf("%d %d 1\n", uid, uid)},
		{"setgroups", "deny"},
		{"gid_map", fmt.Sprintf("%d %d 1\n", gid, gid)},
	} {
		if err := writeProcSelf(w.file, w.content); err != nil {
			return step("map uid and gid: "+w.file, err)
		}
	}
	return nil
}

func writeProcSelf(name, content string) error {
	f, err := os.OpenFile("/proc/self/"+name, os.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte(content))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// missing reports an error about a path the sandboxed command could not
// reach either (it runs with the helper's uid): nothing to protect.
func missing(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EACCES)
}

// setattr sets and clears mount attributes of the mount at path relative
// to dirfd ("" with a mount fd: that detached tree), and of every mount
// below it when recursive.
func setattr(dirfd int, path string, set, clr uint64, recursive bool) error {
	var flags uint
	if recursive {
		flags = unix.AT_RECURSIVE
	}
	if path == "" {
		flags |= unix.AT_EMPTY_PATH
	}
	return unix.MountSetattr(dirfd, path, flags, &unix.MountAttr{Attr_set: set, Attr_clr: clr})
}

// tree is a writable root cloned into a detached mount tree, to be
// attached at its path once /tmp is replaced: a root under /tmp (tests,
// scratch checkouts) would otherwise vanish under the new tmpfs.
type tree struct {
	path string
	real string // path with symlinks resolved in the host's view, to compare with other paths
	fd   int
}

// cloneWritable clones each root that exists, with its submounts, and makes
// the clones writable. A submount whose read-only flag is locked (it was
// read-only on the host) makes the recursive change fail as a whole; then
// only the root's own mount becomes writable and the locked ones stay
// read-only, as on the host. Outer roots come first, so that an inner one
// is attached on top. The first root (the cwd) must exist.
func cloneWritable(roots []string) ([]tree, error) {
	var trees []tree
	for i, r := range roots {
		fd, err := unix.OpenTree(unix.AT_FDCWD, r, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil && i > 0 && missing(err) {
			continue
		}
		if err != nil {
			return nil, step("clone writable root "+r, err)
		}
		err = setattr(fd, "", 0, unix.MOUNT_ATTR_RDONLY, true)
		if errors.Is(err, unix.EPERM) {
			err = setattr(fd, "", 0, unix.MOUNT_ATTR_RDONLY, false)
		}
		if err != nil {
			return nil, step("make writable "+r, err)
		}
		trees = append(trees, tree{r, resolveAll([]string{r})[0], fd})
	}
	slices.SortStableFunc(trees, func(a, b tree) int { return len(a.path) - len(b.path) })
	return trees, nil
}

// attach mounts the clone at its path, first creating the path when it
// lay under the old /tmp (inside the new tmpfs, or inside TempDir).
func (t tree) attach() error {
	defer unix.Close(t.fd)
	if _, err := os.Stat(t.path); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(t.path, 0o755); err != nil {
			return err
		}
	}
	return unix.MoveMount(t.fd, "", unix.AT_FDCWD, t.path, unix.MOVE_MOUNT_F_EMPTY_PATH)
}

func bindReadOnly(path string) error {
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	return setattr(unix.AT_FDCWD, path, unix.MOUNT_ATTR_RDONLY, 0, true)
}

// mountTemp gives the sandbox its own /tmp (TempDir, else a fresh tmpfs
// that dies with the namespace) and /dev/shm, so no two commands and no
// host process share a temp file or a shared-memory segment.
func mountTemp(tempDir string) error {
	var err error
	if tempDir != "" {
		err = bindAt(tempDir, "/tmp")
	} else {
		err = unix.Mount("tmpfs", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777")
	}
	if err != nil && !(tempDir == "" && missing(err)) {
		return step("mount /tmp", err)
	}
	err = unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777")
	if err != nil && !missing(err) {
		return step("mount /dev/shm", err)
	}
	return nil
}

func bindAt(src, dst string) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	return setattr(unix.AT_FDCWD, dst, 0, unix.MOUNT_ATTR_RDONLY, true)
}

// hide covers path with something empty: a directory with an empty
// read-only tmpfs, anything else (a file, a socket) with /dev/null bound
// read-only, which reads empty and refuses connect. The cover is a mount
// point, so the command can neither unmount, rename nor remove it.
func hide(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	const flags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if fi.IsDir() {
		return unix.Mount("tmpfs", path, "tmpfs", flags|unix.MS_RDONLY, "mode=0555,size=4k")
	}
	if err := unix.Mount("/dev/null", path, "", unix.MS_BIND, ""); err != nil {
		return err
	}
	return setattr(unix.AT_FDCWD, path, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOEXEC, 0, false)
}

// loopbackUp brings up lo in the new network namespace (it starts down),
// so that servers the command starts on 127.0.0.1 are reachable by it.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
