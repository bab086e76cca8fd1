package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

var defaultPlatform = map[string][]string{
	"cli": {"terminal", "file", "clarify", "todo"},
	"acp": {"terminal", "file", "clarify"},
}

func TestFoldToolsets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		source    string
		explicit  []string // nil = omitted
		workspace bool
		platform  map[string][]string
		disabled  []string
		want      string // comma-joined
		posture   bool
		errDetail string
	}{
		{name: "cli", source: "cli", want: "clarify,file,terminal,todo"},
		{name: "tui adds project", source: "tui", want: "clarify,file,project,terminal,todo"},
		{name: "gui adds surface", source: "gui", want: "catalog,clarify,desktop_ui,file,project,terminal,todo"},
		{name: "acp uses acp list", source: "acp", want: "clarify,file,terminal"},
		{name: "tool is cli", source: "tool", want: "clarify,file,terminal,todo"},
		{name: "oneshot is cli", source: "oneshot", want: "clarify,file,terminal,todo"},
		{name: "cli posture", source: "cli", workspace: true, want: "coding", posture: true},
		{name: "tui posture", source: "tui", workspace: true, want: "coding,project", posture: true},
		{name: "gui posture", source: "gui", workspace: true, want: "catalog,coding,desktop_ui,project", posture: true},
		{name: "oneshot posture", source: "oneshot", workspace: true, want: "coding", posture: true},
		{name: "tool never posture", source: "tool", workspace: true, want: "clarify,file,terminal,todo"},
		{name: "acp posture keeps base", source: "acp", workspace: true, want: "clarify,file,project,terminal", posture: true},
		{name: "posture with disabled todo", source: "cli", workspace: true, disabled: []string{"todo"},
			want: "clarify,file,project,terminal", posture: true},
		{name: "posture drops non-coding base", source: "cli", workspace: true,
			platform: map[string][]string{"cli": {"terminal", "file", "clarify", "todo", "catalog"}}, want: "coding", posture: true},
		{name: "disabled project on gui", source: "gui", disabled: []string{"project"},
			want: "catalog,clarify,desktop_ui,file,terminal,todo"},
		{name: "desktop_ui cannot be disabled", source: "gui", disabled: []string{"desktop_ui", "catalog"},
			want: "clarify,desktop_ui,file,project,terminal,todo"},
		{name: "missing platform key = builtin", source: "acp", platform: map[string][]string{"cli": {"todo"}}, want: "clarify,file,terminal"},
		{name: "empty platform list = no tools", source: "cli", platform: map[string][]string{"cli": {}}, want: ""},
		{name: "empty platform list tui", source: "tui", platform: map[string][]string{"cli": {}}, want: "project"},
		{name: "unknown config names dropped", source: "cli", platform: map[string][]string{"cli": {"terminal", "plugin_x"}}, want: "terminal"},
		{name: "coding in config split by disabled", source: "cli", platform: map[string][]string{"cli": {"coding"}},
			disabled: []string{"terminal"}, want: "clarify,file,project,todo"},
		{name: "explicit terminal on cli", source: "cli", explicit: []string{"terminal"}, want: "terminal"},
		{name: "explicit empty", source: "gui", explicit: []string{}, want: ""},
		{name: "explicit sorted and unique", source: "cli", explicit: []string{"todo", "terminal", "todo"}, want: "terminal,todo"},
		{name: "explicit never posture", source: "cli", workspace: true, explicit: []string{"file"}, want: "file"},
		{name: "explicit coding in workspace", source: "cli", workspace: true, explicit: []string{"coding"}, want: "coding"},
		{name: "explicit project on tui", source: "tui", explicit: []string{"project"}, want: "project"},
		{name: "explicit surface on gui", source: "gui", explicit: []string{"catalog", "desktop_ui"}, want: "catalog,desktop_ui"},
		{name: "explicit coding outside workspace", source: "cli", explicit: []string{"coding"}, errDetail: "not enabled"},
		{name: "explicit project on cli", source: "cli", explicit: []string{"project"}, errDetail: "not enabled"},
		{name: "explicit catalog on tui", source: "tui", explicit: []string{"catalog"}, errDetail: "not enabled"},
		{name: "explicit disabled name", source: "cli", explicit: []string{"terminal"}, disabled: []string{"terminal"}, errDetail: "not enabled"},
		{name: "explicit coding with disabled member", source: "cli", workspace: true, explicit: []string{"coding"},
			disabled: []string{"todo"}, errDetail: "not enabled"},
		{name: "explicit todo on acp", source: "acp", explicit: []string{"todo"}, errDetail: "not enabled"},
		{name: "explicit desktop_ui on cli", source: "cli", explicit: []string{"desktop_ui"}, errDetail: "desktop_ui"},
		{name: "explicit unknown", source: "gui", explicit: []string{"web"}, errDetail: "unknown toolset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := folding{source: tt.source, workspace: tt.workspace, platform: tt.platform, disabled: tt.disabled}
			if f.platform == nil {
				f.platform = defaultPlatform
			}
			if tt.explicit != nil {
				f.explicit = &tt.explicit
			}
			got, err := foldToolsets(f)
			if tt.errDetail != "" {
				wantErr(t, err, protocol.ReasonInvalidParams, tt.errDetail)
				return
			}
			if err != nil || got.toolsets == nil {
				t.Fatalf("err %v, toolsets %v", err, got.toolsets)
			}
			if s := strings.Join(got.toolsets, ","); s != tt.want || got.posture != tt.posture {
				t.Fatalf("got %s posture=%v, want %s posture=%v", s, got.posture, tt.want, tt.posture)
			}
		})
	}
}

// TestSurfaceOrder: for one config and cwd, tools(cli) ⊆ tools(tui) ⊆
// tools(gui), strictly outside a code workspace with the default config.
func TestSurfaceOrder(t *testing.T) {
	t.Parallel()
	configs := []struct {
		platform map[string][]string
		disabled []string
		strict   bool
	}{
		{defaultPlatform, nil, true},
		{map[string][]string{"cli": {}}, nil, true},
		{map[string][]string{"cli": {"terminal", "clarify"}}, nil, true},
		{defaultPlatform, []string{"project", "catalog"}, false},
		{map[string][]string{"cli": {"coding", "catalog"}}, []string{"file"}, false},
	}
	for i, c := range configs {
		for _, ws := range []bool{false, true} {
			tools := map[string][]string{}
			for _, src := range []string{"cli", "tui", "gui"} {
				f, err := foldToolsets(folding{source: src, workspace: ws, platform: c.platform, disabled: c.disabled})
				if err != nil {
					t.Fatal(err)
				}
				tools[src] = Tools(f.toolsets)
			}
			if !subset(tools["cli"], tools["tui"]) || !subset(tools["tui"], tools["gui"]) {
				t.Errorf("config %d ws=%v: not cli ⊆ tui ⊆ gui: %v", i, ws, tools)
			}
			strict := len(tools["cli"]) < len(tools["tui"]) && len(tools["tui"]) < len(tools["gui"])
			if c.strict && !ws && !strict {
				t.Errorf("config %d: not strict: %v", i, tools)
			}
			if !subset(Toolsets["desktop_ui"], tools["gui"]) || subset(Toolsets["desktop_ui"], tools["tui"]) {
				t.Errorf("config %d ws=%v: desktop_ui only for gui: %v", i, ws, tools)
			}
		}
	}
}

func TestToolsTable(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(Tools(codingMembers), Tools([]string{"coding"})); diff != "" {
		t.Fatalf("coding is not its members (-members +coding):\n%s", diff)
	}
	got := Tools([]string{"terminal", "file", "nope", "terminal"})
	want := []string{"patch", "read_file", "search_files", "terminal", "write_file"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatal(diff)
	}
}

func TestIsCodeWorkspace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, m := range workspaceMarkers {
		dir := mkdir(t, root, "with"+strings.ReplaceAll(m, ".", "_"))
		if m == ".git" {
			mkdir(t, dir, m)
		} else if err := os.WriteFile(filepath.Join(dir, m), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if !IsCodeWorkspace(dir) {
			t.Errorf("%s not a workspace", m)
		}
	}
	gitFile := mkdir(t, root, "worktree")
	writeFile(t, filepath.Join(gitFile, ".git"), "gitdir: elsewhere\n")
	for dir, want := range map[string]bool{
		gitFile:                         true,
		mkdir(t, root, "empty"):         false,
		filepath.Join(root, "missing"):  false,
		mkdir(t, root, "nested", "sub"): false,
	} {
		if got := IsCodeWorkspace(dir); got != want {
			t.Errorf("IsCodeWorkspace(%s) = %v", dir, got)
		}
	}
}

// TestBuildToolsetsBySource: the integration shapes of docs/protocol.md#toolsets with
// the default config: explicit ["terminal"] for cli, tui and gui defaults.
func TestBuildToolsetsBySource(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct{ in, want string }{
		{`{"source":"cli","toolsets":["terminal"],"cwd":"{plain}"}`, "terminal"},
		{`{"source":"tui","cwd":"{plain}"}`, "clarify,file,project,terminal,todo"},
		{`{"source":"gui","cwd":"{plain}"}`, "catalog,clarify,desktop_ui,file,project,terminal,todo"},
		{`{"source":"gui","cwd":"{plain}","toolsets":[]}`, ""},
		{`{"source":"cli","cwd":"{ws}"}`, "coding"},
		{`{"source":"tool","cwd":"{ws}"}`, "clarify,file,terminal,todo"},
	}
	for _, tt := range tests {
		l, err := Build(params(t, e.expand(tt.in)), "uid:1000", e.d, now)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if got := strings.Join(l.Receipt.Policy.Toolsets, ","); got != tt.want {
			t.Errorf("%s: toolsets %s, want %s", tt.in, got, tt.want)
		}
	}
}
