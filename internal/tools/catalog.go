package tools

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

const maxSkillBytes = 256 << 10

// skillName is a safe skill directory name: no separators, no "..".
var skillName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// SkillInfo is one entry of skills_list.
type SkillInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// skillsListTool lists $HERMES_HOME/skills (docs/protocol.md#tools "skills_list").
type skillsListTool struct{}

func (skillsListTool) Spec() Spec {
	return spec("skills_list", "List the available skills with a one-line description each.", `{
  "type": "object",
  "properties": {},
  "additionalProperties": false
}`)
}

func (skillsListTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a struct{}
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	ents, err := os.ReadDir(env.SkillsDir)
	if env.SkillsDir == "" || (err != nil && !os.IsNotExist(err)) {
		return failf("no skills directory is available"), nil
	}
	skills := []SkillInfo{}
	for _, e := range ents {
		if !skillName.MatchString(e.Name()) {
			continue
		}
		text, err := readSkill(env.SkillsDir, e.Name())
		if err != nil {
			continue // not a skill directory
		}
		skills = append(skills, SkillInfo{Name: e.Name(), Description: skillDescription(text)})
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return jsonResult(struct {
		Skills []SkillInfo `json:"skills"`
	}{skills})
}

// skillViewTool shows one skill (docs/protocol.md#tools "skill_view").
type skillViewTool struct{}

func (skillViewTool) Spec() Spec {
	return spec("skill_view", "Show the full instructions of a skill listed by skills_list.", `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", "description": "Skill name."}
  },
  "required": ["name"],
  "additionalProperties": false
}`)
}

func (skillViewTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a struct {
		Name string `json:"name"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	if !skillName.MatchString(a.Name) || strings.Contains(a.Name, "..") {
		return failf("invalid skill name %q", a.Name), nil
	}
	if env.SkillsDir == "" {
		return failf("no skills directory is available"), nil
	}
	text, err := readSkill(env.SkillsDir, a.Name)
	if err != nil {
		return failf("unknown skill %q", a.Name), nil
	}
	return Result{Output: text}, nil
}

// readSkill reads dir/name/SKILL.md, capped; the file must be regular and
// stay inside dir.
func readSkill(dir, name string) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	f, err := root.Open(filepath.Join(name, "SKILL.md"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSkillBytes))
	return string(b), err
}

// skillDescription is the front matter's description, else the first
// non-empty line without its heading marks.
func skillDescription(text string) string {
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i, l := range lines[1:] {
			if strings.TrimSpace(l) == "---" {
				lines = lines[i+2:]
				break
			}
			if d, ok := strings.CutPrefix(strings.TrimSpace(l), "description:"); ok {
				return strings.Trim(strings.TrimSpace(d), `"'`)
			}
		}
	}
	for _, l := range lines {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			return l
		}
	}
	return ""
}
