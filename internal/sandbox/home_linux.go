package sandbox

import (
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// The home rule. When a writable root contains the user's home H
// (Policy.Home; the default cwd is H itself), the TOP LEVEL of H is
// read-only: no entry directly in H can be created, removed, renamed or
// written, and what lies beneath a dot-entry of H (~/.config, ~/.aws,
// ~/.local …) is read-only too, while every non-dot, non-symlink,
// non-hidden child directory of H (~/project, ~/src) stays writable
// throughout. The shell's and other tools' start-up and credential files
// (~/.bashrc, ~/.profile, ~/.aws/config, ~/.gnupg, …) hold code or
// secrets that run or are trusted later, outside the sandbox, and most of
// them do not exist yet when the sandbox is built, so no mount can cover
// them one by one. Existing hidden paths are covered on top as anywhere.
// A writable root inside H (sandbox.writable_roots: ~/.cache/go-build)
// stays writable: it is attached after the rule.
//
// LevelFull binds H read-only onto itself after the writable roots that
// contain it and re-binds each of those child directories read-write
// (lockHomeTop); LevelLandlock grants write beneath those child
// directories instead of beneath H (landlockRules).

// homeUnder returns home, resolved, when one of roots (resolved) is home
// or contains it, else "": the home rule applies only then.
func homeUnder(home string, roots []string) string {
	if home == "" || !filepath.IsAbs(home) {
		return ""
	}
	h := resolveAll([]string{home})[0]
	for _, r := range resolveAll(roots) {
		if r == h || within(h, r) {
			return h
		}
	}
	return ""
}

// homeChildDirs are the children of home that stay writable under the
// home rule: directories (not symlinks, which lead wherever their target
// is, with its own writability) whose name does not start with a dot and
// that are not hidden. hidden is resolved.
func homeChildDirs(home string, hidden []string) []string {
	entries, err := os.ReadDir(home)
	if err != nil {
		return nil // nothing re-bound: the whole home stays read-only
	}
	var out []string
	for _, de := range entries {
		p := filepath.Join(home, de.Name())
		if de.Name()[0] == '.' || !de.IsDir() || slices.Contains(hidden, p) {
			continue // IsDir is false for a symlink (ReadDir does not follow)
		}
		out = append(out, p)
	}
	return out
}

// lockHomeTop applies the home rule at LevelFull: home (resolved) is
// bound read-only onto itself, its submounts as they were (a writable
// root's mounts below it stay writable), then each child directory of
// homeChildDirs is bound onto itself and made writable again. Every one
// of them is a mount point then, so none can be renamed away either.
func lockHomeTop(home string, hidden []string) error {
	if err := unix.Mount(home, home, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return step("bind the home "+home, err)
	}
	if err := setattr(unix.AT_FDCWD, home, unix.MOUNT_ATTR_RDONLY, 0, false); err != nil {
		return step("make the home's top level read-only", err)
	}
	for _, d := range homeChildDirs(home, hidden) {
		if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			if missing(err) {
				continue // gone since the listing, or unreadable: it stays read-only
			}
			return step("bind writable "+d, err)
		}
		if err := setattr(unix.AT_FDCWD, d, 0, unix.MOUNT_ATTR_RDONLY, false); err != nil {
			return step("make writable "+d, err)
		}
	}
	return nil
}

// pinAncestors binds every directory between a writable root and each of
// paths (read-only and hidden paths, resolved) onto itself, as writable
// or read-only as it was, outer first. A mount point cannot be renamed or
// removed (EBUSY), so `mv .git .git-moved && cp -a .git-moved .git` can
// no longer take the read-only .git/hooks and .git/config away with the
// renamed directory and put writable copies in their place; nor can a
// hidden path two levels inside the cwd be moved aside and recreated
// where the daemon will look for it. The paths themselves become mount
// points when they are bound or covered afterwards.
func pinAncestors(paths, roots []string) error {
	var dirs []string
	for _, p := range paths {
		root := deepestRoot(p, roots)
		if root == "" {
			continue // outside every writable root: read-only anyway
		}
		for d := filepath.Dir(p); within(d, root); d = filepath.Dir(d) {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	slices.SortStableFunc(dirs, func(a, b string) int { return len(a) - len(b) })
	for _, d := range dirs {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			continue // absent (nothing below it to protect) or swapped for a symlink since resolving
		}
		if err := unix.Mount(d, d, "", unix.MS_BIND|unix.MS_REC, ""); err != nil && !missing(err) {
			return step("pin "+d, err)
		}
	}
	return nil
}

// deepestRoot is the longest of roots that contains path strictly, or "".
func deepestRoot(path string, roots []string) string {
	best := ""
	for _, r := range roots {
		if within(path, r) && len(r) > len(best) {
			best = r
		}
	}
	return best
}
