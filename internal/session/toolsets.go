package session

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// Toolset names (docs/protocol.md#toolsets).
const (
	ToolsetTerminal  = "terminal"
	ToolsetFile      = "file"
	ToolsetClarify   = "clarify"
	ToolsetTodo      = "todo"
	ToolsetProject   = "project"
	ToolsetDesktopUI = "desktop_ui"
	ToolsetCatalog   = "catalog"
	ToolsetCoding    = "coding"
)

// Toolsets maps every known toolset to its tool names (docs/protocol.md#toolsets). It is the
// contract table, duplicated here on purpose: session may not import tools,
// and tools checks its registry against this table. Read only.
var Toolsets = map[string][]string{
	ToolsetTerminal:  {"terminal"},
	ToolsetFile:      {"read_file", "write_file", "patch", "search_files"},
	ToolsetClarify:   {"clarify"},
	ToolsetTodo:      {"todo"},
	ToolsetProject:   {"project_overview"},
	ToolsetDesktopUI: {"ui_open_file", "ui_show_diff", "ui_notify"},
	ToolsetCatalog:   {"skills_list", "skill_view"},
	ToolsetCoding: {
		"terminal", "read_file", "write_file", "patch", "search_files",
		"clarify", "todo", "project_overview",
	},
}

// codingMembers are the toolsets whose tools make up ToolsetCoding.
var codingMembers = []string{ToolsetTerminal, ToolsetFile, ToolsetClarify, ToolsetTodo, ToolsetProject}

// builtinPlatformToolsets are used when the config has no list for a
// platform key at all (a present, empty list means "no tools").
var builtinPlatformToolsets = map[string][]string{
	"cli": {ToolsetTerminal, ToolsetFile, ToolsetClarify, ToolsetTodo},
	"acp": {ToolsetTerminal, ToolsetFile, ToolsetClarify},
}

// surfaceAdditions are the toolsets a surface adds to the platform defaults.
var surfaceAdditions = map[string][]string{
	"tui": {ToolsetProject},
	"gui": {ToolsetProject, ToolsetDesktopUI, ToolsetCatalog},
}

// workspaceMarkers make a directory a code workspace (docs/protocol.md#toolsets).
var workspaceMarkers = []string{
	".git", "go.mod", "package.json", "pyproject.toml", "setup.py", "Cargo.toml",
	"pom.xml", "build.gradle", "CMakeLists.txt", "Gemfile", "composer.json", "mix.exs",
}

// Tools returns the sorted, de-duplicated tool names of toolsets. Unknown
// toolset names contribute nothing.
func Tools(toolsets []string) []string {
	var out []string
	for _, ts := range toolsets {
		out = append(out, Toolsets[ts]...)
	}
	return sortedUnique(out)
}

// IsCodeWorkspace reports whether dir directly contains one of the
// workspace markers (a file or a directory; `.git` may be either).
func IsCodeWorkspace(dir string) bool {
	for _, m := range workspaceMarkers {
		if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
			return true
		}
	}
	return false
}

func sortedUnique(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return slices.Compact(out)
}

// subset reports whether every element of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
