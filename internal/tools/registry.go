package tools

import (
	"fmt"
	"slices"
	"sort"
)

// Toolsets maps each toolset name (docs/protocol.md#toolsets, contract) to the tool names it
// offers. It is data: the session package folds toolsets by name and the
// agent builds the tools with Build.
var Toolsets = map[string][]string{
	"terminal":   {"terminal"},
	"file":       {"read_file", "write_file", "patch", "search_files"},
	"clarify":    {"clarify"},
	"todo":       {"todo"},
	"project":    {"project_overview"},
	"desktop_ui": {"ui_open_file", "ui_show_diff", "ui_notify"},
	"catalog":    {"skills_list", "skill_view"},
	"coding": {
		"terminal",
		"read_file", "write_file", "patch", "search_files",
		"clarify",
		"todo",
		"project_overview",
	},
}

// all lists every tool implementation; ByName indexes it.
var all = []Tool{
	terminalTool{},
	readFileTool{}, writeFileTool{}, patchTool{}, searchFilesTool{},
	clarifyTool{},
	todoTool{},
	projectOverviewTool{},
	uiOpenFileTool{}, uiShowDiffTool{}, uiNotifyTool{},
	skillsListTool{}, skillViewTool{},
}

var byName = func() map[string]Tool {
	m := make(map[string]Tool, len(all))
	for _, t := range all {
		m[t.Spec().Name] = t
	}
	return m
}()

// KnownToolset reports whether name is a toolset of the contract.
func KnownToolset(name string) bool {
	_, ok := Toolsets[name]
	return ok
}

// ToolNames resolves toolsets to the sorted, deduplicated names of their
// tools. An unknown toolset is an error; no toolsets means no tools.
func ToolNames(toolsets []string) ([]string, error) {
	var names []string
	for _, ts := range toolsets {
		if IsMCPToolset(ts) {
			continue // served by the MCP manager (mcp.go), not built here
		}
		tools, ok := Toolsets[ts]
		if !ok {
			return nil, fmt.Errorf("unknown toolset %q", ts)
		}
		names = append(names, tools...)
	}
	sort.Strings(names)
	return slices.Compact(names), nil
}

// Build returns the tools of toolsets, ordered by name.
func Build(toolsets []string) ([]Tool, error) {
	names, err := ToolNames(toolsets)
	if err != nil {
		return nil, err
	}
	out := make([]Tool, 0, len(names))
	for _, n := range names {
		t, ok := ByName(n)
		if !ok {
			return nil, fmt.Errorf("toolset names unimplemented tool %q", n)
		}
		out = append(out, t)
	}
	return out, nil
}

// ByName returns the tool called name.
func ByName(name string) (Tool, bool) {
	t, ok := byName[name]
	return t, ok
}
