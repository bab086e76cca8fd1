package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// allowExcept returns the paths to grant so that everything beneath root
// is covered except the subtrees in except: root itself when no exception
// lies beneath it, else, recursively, every entry of root that is not an
// exception. Landlock only allows (a rule cannot deny), so a hole in a
// grant is made by granting every sibling along the way down to it.
//
// Symlinks are skipped (access through one is checked where it points,
// which has its own grant or hole); a directory that cannot be listed is
// left out entirely, which denies rather than allows.
func allowExcept(root string, except []string) []string {
	var below []string
	for _, e := range except {
		if e == root {
			return nil
		}
		if within(e, root) {
			below = append(below, e)
		}
	}
	if len(below) == 0 {
		return []string{root}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, de := range entries {
		if de.Type()&os.ModeSymlink != 0 {
			continue
		}
		out = append(out, allowExcept(filepath.Join(root, de.Name()), below)...)
	}
	return out
}

// within reports whether path lies strictly beneath dir.
func within(path, dir string) bool {
	if dir == "/" {
		return path != "/" && strings.HasPrefix(path, "/")
	}
	return strings.HasPrefix(path, dir+"/")
}
