package session

import (
	"slices"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// folding is the input of toolset folding (docs/protocol.md#toolsets).
//
// The rules, in order:
//   - base = the profile's platform list (platform_toolsets.acp for acp, else
//     .cli) minus agent.disabled_toolsets; a disabled member of `coding`
//     splits `coding` into its remaining members.
//   - additions = the surface's toolsets (tui: project; gui: project,
//     desktop_ui, catalog) minus disabled ones; desktop_ui cannot be disabled.
//   - defaults = base + additions; in a code workspace (and source ≠ tool)
//     the coding posture replaces base with `coding`. The posture never
//     grants a tool that base does not, except project_overview (the same
//     read-only summary tui adds): when base lacks part of `coding`, the
//     posture keeps only the members base allows, plus project.
//   - explicit toolsets override the defaults: each name must be known,
//     desktop_ui needs source gui, and their tools must be a subset of the
//     tools of base ∪ defaults — so anything the session would get by default
//     for this profile, source and cwd may be asked for (explicit
//     ["terminal"] for cli works with the default config; explicit ["coding"]
//     for cli works in a code workspace, not elsewhere, because project is
//     only a default there).
//
// For one config and cwd the tools of cli ⊆ tui ⊆ gui, strictly so outside
// a code workspace (in one, cli and tui both get `coding`, which holds
// project already).
type folding struct {
	source    string
	explicit  *[]string
	workspace bool // IsCodeWorkspace(cwd)
	platform  map[string][]string
	disabled  []string
}

// folded is the frozen toolset selection.
type folded struct {
	toolsets []string // sorted, never nil
	posture  bool     // the coding posture was applied
}

func foldToolsets(f folding) (folded, error) {
	defaults, posture := f.defaults()
	if f.explicit == nil {
		return folded{toolsets: nonNil(defaults), posture: posture}, nil
	}
	names, err := f.explicitToolsets(defaults)
	if err != nil {
		return folded{}, err
	}
	return folded{toolsets: nonNil(names)}, nil
}

func (f folding) base() []string {
	key := "cli"
	if f.source == "acp" {
		key = "acp"
	}
	list, ok := f.platform[key]
	if !ok {
		list = builtinPlatformToolsets[key]
	}
	var out []string
	for _, n := range list {
		switch {
		case Toolsets[n] == nil || f.isDisabled(n):
			// Unknown config names offer no tools; disabled ones are filtered.
		case n == ToolsetCoding:
			out = append(out, f.enabledMembers()...)
		default:
			out = append(out, n)
		}
	}
	return sortedUnique(out)
}

// enabledMembers is `coding` itself when none of it is disabled, else the
// members that are not.
func (f folding) enabledMembers() []string {
	var m []string
	for _, n := range codingMembers {
		if !f.isDisabled(n) {
			m = append(m, n)
		}
	}
	if len(m) == len(codingMembers) {
		return []string{ToolsetCoding}
	}
	return m
}

func (f folding) additions() []string {
	var out []string
	for _, n := range surfaceAdditions[f.source] {
		if n == ToolsetDesktopUI || !f.isDisabled(n) {
			out = append(out, n)
		}
	}
	return out
}

func (f folding) defaults() ([]string, bool) {
	base, add := f.base(), f.additions()
	if !f.workspace || f.source == "tool" {
		return sortedUnique(append(base, add...)), false
	}
	return sortedUnique(append(f.posture(base), add...)), true
}

// posture is the coding selection that replaces base in a code workspace.
func (f folding) posture(base []string) []string {
	allowed := Tools(base)
	var members []string
	for _, n := range codingMembers {
		if n == ToolsetProject && !f.isDisabled(n) || subset(Toolsets[n], allowed) {
			members = append(members, n)
		}
	}
	if len(members) == len(codingMembers) && !f.isDisabled(ToolsetCoding) {
		return []string{ToolsetCoding}
	}
	return members
}

func (f folding) explicitToolsets(defaults []string) ([]string, error) {
	names := *f.explicit
	for _, n := range names {
		if Toolsets[n] == nil {
			return nil, protocol.Errorf(protocol.ReasonInvalidParams, "toolsets: unknown toolset %q", clip(n))
		}
		if n == ToolsetDesktopUI && f.source != "gui" {
			return nil, protocol.Errorf(protocol.ReasonInvalidParams, "toolsets: desktop_ui needs source gui")
		}
	}
	allowed := Tools(append(f.base(), defaults...))
	for _, n := range names {
		if !subset(Toolsets[n], allowed) {
			return nil, protocol.Errorf(protocol.ReasonInvalidParams,
				"toolsets: %q is not enabled for this profile and source", n)
		}
	}
	return sortedUnique(names), nil
}

func (f folding) isDisabled(name string) bool { return slices.Contains(f.disabled, name) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
