package tools

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
)

// absPath resolves p against the session cwd and cleans it lexically: for
// display (the ui tools); file tools use confine.
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

// joinCwd makes p absolute against the session cwd without cleaning it:
// ".." is left for resolvePath to apply to the real parent.
func joinCwd(env *Env, p string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("path is empty")
	case strings.ContainsRune(p, 0):
		return "", errors.New("path contains a NUL byte")
	case filepath.IsAbs(p):
		return p, nil
	case env.Cwd == "" || !filepath.IsAbs(env.Cwd):
		return "", errors.New("relative path without a session directory")
	}
	return env.Cwd + "/" + p, nil
}

// within reports whether p is dir or below it, component by component.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// isBinary reports a NUL byte in the sample.
func isBinary(sample []byte) bool {
	return bytes.IndexByte(sample, 0) >= 0
}
