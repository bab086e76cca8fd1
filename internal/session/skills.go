package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// maxSkillBytes bounds one SKILL.md; a larger file is refused rather than
// silently cut, since the rendered prompt is frozen for the session's life.
const maxSkillBytes = 256 << 10

// RenderSkills renders the named skills ($skillsDir/NAME/SKILL.md) into the
// text frozen as Policy.SkillsPrompt, in the order given (duplicates once).
//
// Every name must resolve: a name that is not a plain directory name, or
// whose SKILL.md is missing or unreadable, is unknown_skill. (The reference
// only fails when none resolves; refusing any miss is stricter and keeps
// "asked for X, silently did not get X" impossible.) An oversized SKILL.md
// is invalid_params.
func RenderSkills(skillsDir string, names []string) (string, error) {
	var b strings.Builder
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		body, err := readSkill(skillsDir, name)
		if err != nil {
			return "", err
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("## Skill: " + name + "\n\n")
		b.WriteString(strings.TrimRight(body, "\n"))
	}
	if b.Len() == 0 {
		return "", protocol.Errorf(protocol.ReasonUnknownSkill, "skills: no skill given")
	}
	return b.String(), nil
}

func readSkill(skillsDir, name string) (string, error) {
	unknown := protocol.Errorf(protocol.ReasonUnknownSkill, "skills: unknown skill %q", clip(name))
	if skillsDir == "" || !plainName(name) {
		return "", unknown
	}
	p := filepath.Join(skillsDir, name, "SKILL.md")
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !st.Mode().IsRegular() {
		return "", unknown
	}
	if err != nil {
		return "", &protocol.Error{Reason: protocol.ReasonUnknownSkill, Detail: unknown.Detail, Cause: err}
	}
	if st.Size() > maxSkillBytes {
		return "", invalid("skills: SKILL.md of %q is larger than %d bytes", clip(name), maxSkillBytes)
	}
	body, err := os.ReadFile(p)
	if err != nil {
		return "", &protocol.Error{Reason: protocol.ReasonUnknownSkill, Detail: unknown.Detail, Cause: err}
	}
	return string(body), nil
}

// plainName accepts one path element that cannot escape skillsDir.
func plainName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, `/\`+"\x00") &&
		!strings.HasPrefix(n, ".")
}
