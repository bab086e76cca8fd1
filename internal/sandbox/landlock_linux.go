package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxLandlockABI is the newest ABI whose rights this file knows; a newer
// kernel is used at this ABI (and reported so).
const maxLandlockABI = 7

// rulesetAttr is struct landlock_ruleset_attr up to the scoped field
// (ABI 6). It is ours rather than unix.LandlockRulesetAttr because that
// one has grown fields later kernels know, and older ones refuse a larger
// struct unless the extra bytes are zero: this size says exactly what we
// ask for.
type rulesetAttr struct {
	handledFS  uint64
	handledNet uint64 // 0: the network is the namespace's business
	scoped     uint64
}

const (
	llRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// llFileRights are the rights that apply to a file (as opposed to a
	// directory); a rule on a file may grant only these.
	llFileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// landlockABI asks the kernel for its Landlock ABI version.
func landlockABI() (int, string) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, "landlock_create_ruleset: " + errno.Error()
	}
	return min(int(v), maxLandlockABI), ""
}

// fsRights is every filesystem right ABI abi knows: all of them are
// handled, so nothing is allowed that a rule does not grant.
func fsRights(abi int) uint64 {
	r := uint64(unix.LANDLOCK_ACCESS_FS_MAKE_SYM<<1 - 1) // ABI 1: execute … make_sym
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return r
}

// llRule grants access beneath path (or on it, when it is not a
// directory).
type llRule struct {
	path     string
	access   uint64
	nofollow bool // below a root: never follow a symlink swapped in since the listing
}

// applyLandlock restricts this thread to spec's rules. At LevelFull the
// mounts already say what is writable and hidden, and Landlock repeats the
// writable part; at LevelLandlock it is the only wall (landlockRules).
func applyLandlock(spec helperSpec) error {
	handled := fsRights(spec.ABI)
	attr := rulesetAttr{handledFS: handled}
	if spec.ABI >= 6 {
		attr.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return step("landlock_create_ruleset", errno)
	}
	defer unix.Close(int(fd))
	for _, r := range landlockRules(spec, handled) {
		if err := addRule(int(fd), r, handled); err != nil && !missing(err) {
			return step("landlock rule "+r.path, err)
		}
	}
	_, _, errno = unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0)
	if errno != 0 {
		return step("landlock_restrict_self", errno)
	}
	return nil
}

// landlockRules: read and execute everywhere, everything beneath the
// writable roots, the temp dir and /dev (/dev/null, the terminal, /dev/shm).
//
// At LevelLandlock no mount covers the hidden paths, so the grants have
// holes there (allowExcept). A rule on a directory covers everything
// beneath it, so a directory that holds a hidden path gets no rule of its
// own: nothing can be created or removed directly in it (in the home
// directory, when it is the cwd), while its other entries stay readable or
// writable. Listing is granted everywhere (READ_DIR on /), so ls works in
// those directories; the price is that the names, never the contents,
// inside a hidden directory are listable. ReadOnlyPaths are not enforced
// at this level: holes for .git/hooks and .git/config would freeze the
// cwd and .git themselves against new entries (see LevelLandlock).
//
// The home rule (home_linux.go): a writable root that contains the user's
// home gets a hole there, and each of the home's non-dot, non-symlink,
// non-hidden child directories gets the grant instead.
func landlockRules(spec helperSpec, all uint64) []llRule {
	writable := append([]string{spec.Cwd, "/dev"}, spec.WritableRoots...)
	if spec.Level == LevelFull || spec.TempDir == "" {
		writable = append(writable, "/tmp")
	} else {
		writable = append(writable, spec.TempDir)
	}
	if spec.Level == LevelFull {
		rules := []llRule{{"/", llRead, false}}
		for _, w := range writable {
			rules = append(rules, llRule{w, all, false})
		}
		return rules
	}
	hidden := existing(resolveAll(spec.HiddenPaths))
	rules := []llRule{{"/", unix.LANDLOCK_ACCESS_FS_READ_DIR, false}}
	for _, p := range allowExcept("/", hidden) {
		rules = append(rules, llRule{p, llRead, p != "/"})
	}
	home := homeUnder(spec.Home, writable) // the temp dir too: at this level it is the host's
	// Resolved, so that the holes (resolved) are found beneath them: a
	// cwd spelled through a symlink would otherwise be granted whole.
	for _, w := range resolveAll(writable) {
		except := hidden
		if home != "" && (w == home || within(home, w)) {
			except = append(slices.Clone(hidden), home)
		}
		for _, p := range allowExcept(w, except) {
			rules = append(rules, llRule{p, all, p != w})
		}
	}
	if home != "" {
		for _, d := range homeChildDirs(home, hidden) { // listed: never follow a symlink swapped in since
			for _, p := range allowExcept(d, hidden) {
				rules = append(rules, llRule{p, all, true})
			}
		}
	}
	return rules
}

// addRule grants r.access on r.path. A root that is a symlink means its
// target; below a root, allowExcept skips symlinks, and O_NOFOLLOW keeps
// one swapped in since by a concurrent command (in a shared cwd) from
// moving the grant onto, say, a hidden directory: the rule then lands on
// the link itself, which grants nothing.
func addRule(ruleset int, r llRule, handled uint64) error {
	flags := unix.O_PATH | unix.O_CLOEXEC
	if r.nofollow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(r.path, flags, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	access := r.access & handled
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= llFileRights
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule: %w", errno)
	}
	return nil
}

// resolveAll resolves symlinks in paths, so that a hole is made where the
// file really is: a hidden /home/u/.ssh behind a /home symlink lives
// elsewhere, and allowExcept skips symlinks. A path that does not resolve
// (it does not exist) is kept as written.
func resolveAll(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// existing drops the paths that do not exist: there is nothing to hide, and
// a hole for one would freeze its parent for no gain.
func existing(paths []string) []string {
	return slices.DeleteFunc(paths, func(p string) bool {
		_, err := os.Lstat(p)
		return err != nil
	})
}
