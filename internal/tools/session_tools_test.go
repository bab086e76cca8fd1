package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeClarifier answers questions from a list, in order, recording them.
type fakeClarifier struct {
	answers []string
	mu      sync.Mutex
	asked   []Question
}

func (c *fakeClarifier) Ask(ctx context.Context, q Question) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, q)
	return c.answers[len(c.asked)-1], nil
}

func TestClarify(t *testing.T) {
	t.Parallel()
	c := &fakeClarifier{answers: []string{"green", `["a","b"]`}}
	res := run(t, &Env{Clarifier: c}, "clarify", `{"questions":[
		{"question":"Pick a color","choices":["blue","green"]},
		{"question":"Which?","choices":["a","b","c"],"multi_select":true}]}`)
	var got map[string]string
	if err := json.Unmarshal([]byte(res.Output), &got); err != nil || res.IsError {
		t.Fatalf("result %+v: %v", res, err)
	}
	want := map[string]string{"Pick a color": "green", "Which?": `["a","b"]`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	wantAsked := []Question{
		{Question: "Pick a color", Choices: []string{"blue", "green"}},
		{Question: "Which?", Choices: []string{"a", "b", "c"}, MultiSelect: true},
	}
	if diff := cmp.Diff(wantAsked, c.asked); diff != "" {
		t.Errorf("questions asked in order (-want +got):\n%s", diff)
	}
}

func TestClarifyErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  *Env
		args string
		want string
	}{
		{"no clarifier", &Env{}, `{"questions":[{"question":"q"}]}`, "no viewer can answer"},
		{"no questions", &Env{Clarifier: &fakeClarifier{}}, `{"questions":[]}`, "at least one question"},
		{"empty question", &Env{Clarifier: &fakeClarifier{}}, `{"questions":[{"question":" "}]}`, "question 1 is empty"},
		{"unknown field", &Env{Clarifier: &fakeClarifier{}}, `{"questions":[{"q":"x"}]}`, "invalid arguments"},
	}
	for _, tt := range tests {
		res := run(t, tt.env, "clarify", tt.args)
		if !res.IsError || !strings.Contains(res.Output, tt.want) {
			t.Errorf("%s: got %+v, want error containing %q", tt.name, res, tt.want)
		}
	}
}

func TestTodo(t *testing.T) {
	t.Parallel()
	env := &Env{Todos: &TodoList{}}
	steps := []struct {
		args    string
		want    string
		wantErr bool
	}{
		{`{}`, `{"todos":[]}`, false},
		{`{"todos":[{"id":"1","content":"a","status":"pending"},{"id":"2","content":"b","status":"pending"}]}`,
			`{"todos":[{"id":"1","content":"a","status":"pending"},{"id":"2","content":"b","status":"pending"}]}`, false},
		{`{"merge":true,"todos":[{"id":"2","status":"completed"},{"id":"3","content":"c"}]}`,
			`{"todos":[{"id":"1","content":"a","status":"pending"},{"id":"2","content":"b","status":"completed"},{"id":"3","content":"c","status":"pending"}]}`, false},
		{`{"todos":[{"id":"9","content":"z","status":"done"}]}`, "status \"done\"", true},
		{`{"todos":[{"id":"9","content":"z","status":"pending"},{"id":"9","content":"y","status":"pending"}]}`, "appears twice", true},
		{`{"todos":[{"id":"4","content":"d","status":"in_progress"}]}`, `{"todos":[{"id":"4","content":"d","status":"in_progress"}]}`, false},
	}
	for i, s := range steps {
		res := run(t, env, "todo", s.args)
		if res.IsError != s.wantErr || (!s.wantErr && res.Output != s.want) || (s.wantErr && !strings.Contains(res.Output, s.want)) {
			t.Fatalf("step %d: got %+v, want %q (IsError %v)", i, res, s.want, s.wantErr)
		}
	}
	if res := run(t, &Env{}, "todo", `{"todos":[{"id":"1","content":"a","status":"pending"}]}`); res.IsError {
		t.Fatalf("nil list: %+v", res)
	}
}

func TestProjectOverview(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	writeFile(t, filepath.Join(cwd, ".git/HEAD"), "ref: refs/heads/feature/x\n")
	writeFile(t, filepath.Join(cwd, "main.go"), "package main")
	writeFile(t, filepath.Join(cwd, "pkg/a.go"), "package pkg")
	writeFile(t, filepath.Join(cwd, "web/app.ts"), "")
	writeFile(t, filepath.Join(cwd, "node_modules/x/y.js"), "")
	writeFile(t, filepath.Join(cwd, "AGENTS.md"), "rules")
	res := run(t, &Env{Cwd: cwd}, "project_overview", `{}`)
	var got Overview
	if err := json.Unmarshal([]byte(res.Output), &got); err != nil || res.IsError {
		t.Fatalf("result %+v: %v", res, err)
	}
	want := Overview{
		Cwd:        cwd,
		Git:        &GitState{Branch: "feature/x"},
		Entries:    []string{".git/", "AGENTS.md", "main.go", "node_modules/", "pkg/", "web/"},
		Languages:  map[string]int{"Go": 2, "TypeScript": 1, "Markdown": 1},
		RulesFiles: []string{"AGENTS.md"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("overview (-want +got):\n%s", diff)
	}
	plain := t.TempDir()
	res = run(t, &Env{Cwd: plain}, "project_overview", `{}`)
	if strings.Contains(res.Output, `"git"`) || res.IsError {
		t.Errorf("non-repo overview: %+v", res)
	}
	writeFile(t, filepath.Join(plain, ".git"), "gitdir: "+filepath.Join(cwd, ".git")+"\n")
	if res = run(t, &Env{Cwd: plain}, "project_overview", `{}`); !strings.Contains(res.Output, `"branch":"feature/x"`) {
		t.Errorf("worktree overview: %+v", res)
	}
}

// uiRecorder records ui events.
type uiRecorder struct {
	mu     sync.Mutex
	events []string
}

func (u *uiRecorder) UIEvent(kind string, payload any) {
	b, _ := json.Marshal(payload)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.events = append(u.events, kind+" "+string(b))
}

func TestUITools(t *testing.T) {
	t.Parallel()
	ui := &uiRecorder{}
	env := &Env{Cwd: "/w", UI: ui}
	calls := []struct {
		tool, args string
	}{
		{"ui_open_file", `{"path":"a.go","line":3}`},
		{"ui_show_diff", `{"path":"/x/b.go","diff":"@@ -1 +1 @@"}`},
		{"ui_notify", `{"message":"done"}`},
		{"ui_notify", `{"message":"bad","level":"error"}`},
	}
	for _, c := range calls {
		if res := run(t, env, c.tool, c.args); res.Output != "shown" || res.IsError {
			t.Fatalf("%s: %+v", c.tool, res)
		}
	}
	want := []string{
		`ui.open_file {"path":"/w/a.go","line":3}`,
		`ui.show_diff {"path":"/x/b.go","diff":"@@ -1 +1 @@"}`,
		`ui.notify {"message":"done","level":"info"}`,
		`ui.notify {"message":"bad","level":"error"}`,
	}
	if diff := cmp.Diff(want, ui.events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	for _, c := range []struct{ tool, args string }{
		{"ui_notify", `{"message":"x"}`},
		{"ui_open_file", `{"path":"a"}`},
	} {
		if res := run(t, &Env{Cwd: "/w"}, c.tool, c.args); !res.IsError {
			t.Errorf("%s without UI: %+v", c.tool, res)
		}
	}
	if res := run(t, env, "ui_notify", `{"message":"x","level":"loud"}`); !res.IsError {
		t.Errorf("bad level accepted: %+v", res)
	}
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	skills := filepath.Join(home, "skills")
	writeFile(t, filepath.Join(skills, "deploy/SKILL.md"), "---\nname: deploy\ndescription: Ship it safely\n---\n# Deploy\nsteps")
	writeFile(t, filepath.Join(skills, "review/SKILL.md"), "\n# Code review\nbody")
	writeFile(t, filepath.Join(skills, "empty/README.md"), "not a skill")
	writeFile(t, filepath.Join(home, "secret/SKILL.md"), "secret")
	if err := os.Symlink(filepath.Join(home, "secret"), filepath.Join(skills, "escape")); err != nil {
		t.Fatal(err)
	}
	env := &Env{SkillsDir: skills}
	res := run(t, env, "skills_list", `{}`)
	want := `{"skills":[{"name":"deploy","description":"Ship it safely"},{"name":"review","description":"Code review"}]}`
	if res.Output != want {
		t.Errorf("skills_list = %s, want %s", res.Output, want)
	}
	if res := run(t, env, "skill_view", `{"name":"review"}`); res.Output != "\n# Code review\nbody" {
		t.Errorf("skill_view = %+v", res)
	}
	for _, name := range []string{"../secret", "escape", "nope", "", "a/b", ".."} {
		if res := run(t, env, "skill_view", map[string]string{"name": name}); !res.IsError || strings.Contains(res.Output, "secret\n") || res.Output == "secret" {
			t.Errorf("skill_view(%q) = %+v, want an error", name, res)
		}
	}
	if res := run(t, &Env{}, "skills_list", `{}`); !res.IsError {
		t.Errorf("skills_list without a directory: %+v", res)
	}
}
