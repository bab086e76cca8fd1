package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	maxTopEntries   = 100
	maxWalkFiles    = 5000
	maxWalkDepth    = 6
	maxLanguages    = 10
	maxHeadFileSize = 4 << 10
)

// rulesFiles are project instructions the agent should read when present.
var rulesFiles = []string{"AGENTS.md", ".hermes.md", "CLAUDE.md"}

// languages maps file extensions to language names.
var languages = map[string]string{
	".go": "Go", ".py": "Python", ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript",
	".ts": "TypeScript", ".tsx": "TypeScript", ".jsx": "JavaScript", ".rs": "Rust", ".java": "Java",
	".kt": "Kotlin", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".hpp": "C++", ".cs": "C#",
	".rb": "Ruby", ".php": "PHP", ".swift": "Swift", ".m": "Objective-C", ".scala": "Scala",
	".sh": "Shell", ".bash": "Shell", ".zsh": "Shell", ".lua": "Lua", ".ex": "Elixir", ".exs": "Elixir",
	".erl": "Erlang", ".hs": "Haskell", ".ml": "OCaml", ".clj": "Clojure", ".dart": "Dart",
	".sql": "SQL", ".html": "HTML", ".css": "CSS", ".scss": "CSS", ".vue": "Vue", ".svelte": "Svelte",
	".md": "Markdown", ".zig": "Zig", ".nim": "Nim", ".r": "R", ".jl": "Julia", ".pl": "Perl",
}

// skipDirs are not walked for language counts.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true, "target": true, "dist": true, "build": true, "__pycache__": true, ".venv": true}

// projectOverviewTool summarizes the session directory (docs/protocol.md#tools "project_overview").
type projectOverviewTool struct{}

func (projectOverviewTool) Spec() Spec {
	return spec("project_overview", "Summarize the session directory: git branch, top-level "+
		"entries, languages by file count and the project rules files present.", `{
  "type": "object",
  "properties": {},
  "additionalProperties": false
}`)
}

// Overview is the project_overview result.
type Overview struct {
	Cwd        string         `json:"cwd"`
	Git        *GitState      `json:"git,omitempty"`
	Entries    []string       `json:"entries"`
	Truncated  bool           `json:"entries_truncated,omitempty"`
	Languages  map[string]int `json:"languages"`
	RulesFiles []string       `json:"rules_files"`
}

// GitState is what project_overview reads from .git without running git.
type GitState struct {
	Branch   string `json:"branch,omitempty"`
	Detached string `json:"detached_at,omitempty"` // commit id when HEAD is not a branch
}

func (projectOverviewTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a struct{}
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	ents, err := os.ReadDir(env.Cwd)
	if err != nil {
		return failf("cannot read %s: %v", env.Cwd, err), nil
	}
	o := Overview{Cwd: env.Cwd, Git: gitState(env.Cwd), Entries: []string{}, RulesFiles: []string{}}
	for _, e := range ents {
		if len(o.Entries) == maxTopEntries {
			o.Truncated = true
			break
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		o.Entries = append(o.Entries, name)
	}
	for _, f := range rulesFiles {
		if st, err := os.Stat(filepath.Join(env.Cwd, f)); err == nil && st.Mode().IsRegular() {
			o.RulesFiles = append(o.RulesFiles, f)
		}
	}
	o.Languages = countLanguages(ctx, env.Cwd)
	return jsonResult(o)
}

// gitState reads .git/HEAD (following a "gitdir:" file); nil when cwd is
// not the root of a git work tree.
func gitState(cwd string) *GitState {
	dot := filepath.Join(cwd, ".git")
	st, err := os.Stat(dot)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		b, err := readHead(dot)
		dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if err != nil || !ok {
			return &GitState{}
		}
		if dot = strings.TrimSpace(dir); !filepath.IsAbs(dot) {
			dot = filepath.Join(cwd, dot)
		}
	}
	head, err := readHead(filepath.Join(dot, "HEAD"))
	if err != nil {
		return &GitState{}
	}
	s := strings.TrimSpace(string(head))
	if ref, ok := strings.CutPrefix(s, "ref:"); ok {
		return &GitState{Branch: strings.TrimPrefix(strings.TrimSpace(ref), "refs/heads/")}
	}
	return &GitState{Detached: s}
}

// readHead reads a small file.
func readHead(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, maxHeadFileSize)
	n, _ := f.Read(buf)
	return buf[:n], nil
}

// countLanguages counts files by language in a bounded walk and keeps the
// most common ones.
func countLanguages(ctx context.Context, root string) map[string]int {
	counts := map[string]int{}
	files := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil || files >= maxWalkFiles {
			return fs.SkipAll
		}
		if err != nil {
			return nil // unreadable entry: WalkDir skips it
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			if p != root && (skipDirs[d.Name()] || strings.Count(rel, string(filepath.Separator)) >= maxWalkDepth) {
				return fs.SkipDir
			}
			return nil
		}
		files++
		if lang, ok := languages[strings.ToLower(filepath.Ext(p))]; ok {
			counts[lang]++
		}
		return nil
	})
	return topLanguages(counts)
}

func topLanguages(counts map[string]int) map[string]int {
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	out := map[string]int{}
	for _, n := range names[:min(len(names), maxLanguages)] {
		out[n] = counts[n]
	}
	return out
}
