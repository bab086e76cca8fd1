package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestRenderSkills(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	mkdir(t, e.skills, "nofile")
	mkdir(t, e.skills, "dirskill", "SKILL.md")
	writeFile(t, filepath.Join(e.skills, "big", "SKILL.md"), strings.Repeat("x", maxSkillBytes+1))
	writeFile(t, filepath.Join(e.root, "outside", "SKILL.md"), "secret")
	tests := []struct {
		name   string
		dir    string
		names  []string
		want   string
		reason protocol.Reason
	}{
		{name: "one", dir: e.skills, names: []string{"review"}, want: "## Skill: review\n\nReview carefully."},
		{name: "order and duplicates", dir: e.skills, names: []string{"style", "review", "style"},
			want: "## Skill: style\n\nUse gofmt.\n\n## Skill: review\n\nReview carefully."},
		{name: "missing", dir: e.skills, names: []string{"nope"}, reason: protocol.ReasonUnknownSkill},
		{name: "one of two missing", dir: e.skills, names: []string{"review", "nope"}, reason: protocol.ReasonUnknownSkill},
		{name: "no SKILL.md", dir: e.skills, names: []string{"nofile"}, reason: protocol.ReasonUnknownSkill},
		{name: "SKILL.md is a dir", dir: e.skills, names: []string{"dirskill"}, reason: protocol.ReasonUnknownSkill},
		{name: "traversal", dir: e.skills, names: []string{"../outside"}, reason: protocol.ReasonUnknownSkill},
		{name: "dot dot", dir: e.skills, names: []string{".."}, reason: protocol.ReasonUnknownSkill},
		{name: "hidden", dir: e.skills, names: []string{".git"}, reason: protocol.ReasonUnknownSkill},
		{name: "absolute", dir: e.skills, names: []string{filepath.Join(e.root, "outside")}, reason: protocol.ReasonUnknownSkill},
		{name: "no skills dir", dir: "", names: []string{"review"}, reason: protocol.ReasonUnknownSkill},
		{name: "none given", dir: e.skills, names: nil, reason: protocol.ReasonUnknownSkill},
		{name: "too big", dir: e.skills, names: []string{"big"}, reason: protocol.ReasonInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := RenderSkills(tt.dir, tt.names)
			wantErr(t, err, tt.reason, "skills:")
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRenderSkillsUnreadable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	e := newEnv(t)
	p := filepath.Join(e.skills, "locked", "SKILL.md")
	writeFile(t, p, "x")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	_, err := RenderSkills(e.skills, []string{"locked"})
	wantErr(t, err, protocol.ReasonUnknownSkill, "skills:")
}
