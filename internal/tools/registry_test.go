package tools

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToolNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		toolsets []string
		want     []string
		wantErr  bool
	}{
		{nil, nil, false},
		{[]string{}, nil, false},
		{[]string{"terminal", "clarify"}, []string{"clarify", "terminal"}, false},
		{[]string{"coding", "terminal"}, []string{"clarify", "patch", "project_overview", "read_file", "search_files", "terminal", "todo", "write_file"}, false},
		{[]string{"desktop_ui"}, []string{"ui_notify", "ui_open_file", "ui_show_diff"}, false},
		{[]string{"catalog"}, []string{"skill_view", "skills_list"}, false},
		{[]string{"terminal", "nope"}, nil, true},
	}
	for _, tt := range tests {
		got, err := ToolNames(tt.toolsets)
		if (err != nil) != tt.wantErr {
			t.Errorf("ToolNames(%v) error = %v, wantErr %v", tt.toolsets, err, tt.wantErr)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ToolNames(%v) (-want +got):\n%s", tt.toolsets, diff)
		}
	}
}

func TestCodingIsTheUnionOfItsParts(t *testing.T) {
	t.Parallel()
	parts, _ := ToolNames([]string{"terminal", "file", "clarify", "todo", "project"})
	coding, _ := ToolNames([]string{"coding"})
	if diff := cmp.Diff(parts, coding); diff != "" {
		t.Fatalf("coding differs from its parts (-parts +coding):\n%s", diff)
	}
}

func TestBuildEveryToolset(t *testing.T) {
	t.Parallel()
	for name := range Toolsets {
		if !KnownToolset(name) {
			t.Errorf("KnownToolset(%q) = false", name)
		}
		tools, err := Build([]string{name})
		if err != nil {
			t.Fatalf("Build(%q): %v", name, err)
		}
		names, _ := ToolNames([]string{name})
		for i, tool := range tools {
			if got := tool.Spec().Name; got != names[i] {
				t.Errorf("Build(%q)[%d] = %q, want %q", name, i, got, names[i])
			}
		}
	}
	if KnownToolset("web") {
		t.Error(`KnownToolset("web") = true`)
	}
	if _, err := Build([]string{"web"}); err == nil {
		t.Error("Build(web) succeeded")
	}
}

func TestSpecsAreStrictObjectSchemas(t *testing.T) {
	t.Parallel()
	for _, tool := range all {
		s := tool.Spec()
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
			Additional *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(s.Parameters, &schema); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", s.Name, err)
		}
		if schema.Type != "object" || schema.Additional == nil || *schema.Additional || s.Description == "" {
			t.Errorf("%s: want a described object schema with additionalProperties false", s.Name)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", s.Name, r)
			}
		}
		if got, ok := ByName(s.Name); !ok || got.Spec().Name != s.Name {
			t.Errorf("ByName(%q) failed", s.Name)
		}
	}
}
