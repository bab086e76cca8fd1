package tools

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

const (
	defaultSearchResults = 100
	maxSearchResults     = 1000
	maxSearchFiles       = 20000   // files visited per call
	maxSearchFileBytes   = 8 << 20 // larger files are skipped
	maxMatchLine         = 300
)

var errSearchDone = errors.New("search limit reached")

// searchFilesTool greps files under a directory (docs/protocol.md#tools "search_files").
type searchFilesTool struct{}

func (searchFilesTool) Spec() Spec {
	return spec("search_files", "Search file contents with a regular expression (Go RE2 syntax) "+
		"under a directory. Skips .git, symlinks, binary files and protected paths; searching outside "+
		"the session directory asks the user first. Returns path:line: text.", `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "minLength": 1, "description": "Regular expression to look for."},
    "path": {"type": "string", "description": "Directory or file to search (default: the session directory)."},
    "glob": {"type": "string", "description": "Only files whose base name matches this glob, e.g. *.go."},
    "max_results": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Maximum matching lines (default 100)."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)
}

type searchArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	MaxResults int    `json:"max_results"`
}

// searcher holds one search's state.
type searcher struct {
	re   *regexp.Regexp
	glob string
	base string // results are shown relative to it (the real cwd)
	max  int
	// root is the judged search root; pol and shields (the protected
	// places not containing it) decide what the walk skips.
	root    *grant
	shields []place
	files   int
	skipped int // protected entries left out
	matches []string
}

func (searchFilesTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a searchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil || a.Pattern == "" {
		return failf("invalid pattern %q: %v", a.Pattern, err), nil
	}
	if _, err := filepath.Match(a.Glob, "x"); err != nil {
		return failf("invalid glob %q: %v", a.Glob, err), nil
	}
	g, res, ok, err := confine(ctx, env, "search_files", accessRead, cmp.Or(a.Path, "."))
	if !ok || err != nil {
		return res, err
	}
	s := &searcher{re: re, glob: a.Glob, base: g.pol.roots[0].path, max: min(cmpOr(a.MaxResults, defaultSearchResults), maxSearchResults),
		root: g, shields: g.pol.shields(g.path)}
	err = filepath.WalkDir(g.path, func(p string, d fs.DirEntry, err error) error { return s.visit(ctx, p, d, err) })
	switch {
	case ctx.Err() != nil:
		return Result{}, fmt.Errorf("search_files: %w", ctx.Err())
	case err != nil && !errors.Is(err, errSearchDone):
		return failf("cannot search %s: %v", g.path, err), nil
	}
	return s.result(errors.Is(err, errSearchDone)), nil
}

func (s *searcher) visit(ctx context.Context, p string, d fs.DirEntry, err error) error {
	if err != nil {
		if d != nil && d.IsDir() {
			return fs.SkipDir // unreadable directory: skip, keep going
		}
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if d.IsDir() {
		if d.Name() == ".git" {
			return fs.SkipDir
		}
		if info, err := d.Info(); err == nil && p != s.root.path && s.shielded(p, info) {
			s.skipped++
			return fs.SkipDir
		}
		return nil
	}
	if !d.Type().IsRegular() {
		return nil
	}
	if s.glob != "" {
		if ok, _ := filepath.Match(s.glob, d.Name()); !ok {
			return nil
		}
	}
	s.files++
	if s.files > maxSearchFiles {
		return errSearchDone
	}
	return s.grep(p)
}

// grep appends the matching lines of one file.
func (s *searcher) grep(p string) error {
	f := s.open(p)
	if f == nil {
		return nil // unreadable, protected or too large: skip
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if head, _ := br.Peek(8 << 10); isBinary(head) {
		return nil
	}
	name := p
	if rel, err := filepath.Rel(s.base, p); err == nil && within(s.base, p) {
		name = rel
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if line := sc.Text(); s.re.MatchString(line) {
			if len(line) > maxMatchLine {
				line = line[:maxMatchLine] + "…"
			}
			s.matches = append(s.matches, fmt.Sprintf("%s:%d: %s", name, n, line))
			if len(s.matches) >= s.max {
				return errSearchDone
			}
		}
	}
	return nil
}

// open opens a file found by the walk as the root's grant would: no
// symlink followed (the root is resolved), never a hardline file, never a
// shielded one (a protected file, or a hard link to one). Nil means skip.
func (s *searcher) open(p string) *os.File {
	g := *s.root
	g.path = p
	f, err := g.openRead()
	if errors.Is(err, errHardline) {
		s.skipped++
	}
	if err != nil {
		return nil
	}
	st, err := f.Stat()
	switch {
	case err != nil || st.Size() > maxSearchFileBytes:
	case s.shielded(p, st):
		s.skipped++
	default:
		return f
	}
	f.Close()
	return nil
}

// shielded reports whether p (described by info) is a shield: by path or
// by device and inode (a bind mount or a hard link of one).
func (s *searcher) shielded(p string, info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	for _, sh := range s.shields {
		if p == sh.path || ok && sh.ok && sh.id == (fileID{uint64(st.Dev), st.Ino}) {
			return true
		}
	}
	return false
}

func (s *searcher) result(capped bool) Result {
	var out string
	if len(s.matches) == 0 {
		out = "no matches"
	}
	out += strings.Join(s.matches, "\n")
	if capped {
		out += fmt.Sprintf("\n[results capped at %d; narrow the pattern, path or glob]", len(s.matches))
	}
	if s.skipped > 0 {
		out += fmt.Sprintf("\n[%d protected path(s) skipped; read them one by one to ask the user]", s.skipped)
	}
	return Result{Output: out}
}
