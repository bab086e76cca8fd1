package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Events, with Claude Code's names.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	Stop             = "Stop"
	PreCompact       = "PreCompact"
	SessionEnd       = "SessionEnd"
)

// Events lists every event a configuration may name.
var Events = []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop, PreCompact, SessionEnd}

// Limits of one hook.
const (
	DefaultTimeout = 60 * time.Second
	MaxTimeout     = time.Hour
)

// Sources of a hook command: where it was configured.
const (
	SourceConfig  = "config"  // config.yaml hooks:
	SourceProject = "project" // .hermes/hooks.yaml in the session cwd (needs consent)
)

// ProjectFile is the project hook file, relative to the session cwd.
const ProjectFile = ".hermes/hooks.yaml"

// Command is one hook command. Timeout is in seconds, as Claude Code
// writes it; 0 is DefaultTimeout.
type Command struct {
	Type       string  `json:"type" yaml:"type"`
	Command    string  `json:"command" yaml:"command"`
	Timeout    float64 `json:"timeout,omitempty" yaml:"timeout"`
	FailClosed bool    `json:"fail_closed,omitempty" yaml:"fail_closed"`
}

// TimeoutDuration is the hook's timeout.
func (c Command) TimeoutDuration() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return time.Duration(c.Timeout * float64(time.Second))
}

// Group is one matcher and its commands.
type Group struct {
	// Matcher is a regular expression that must match the whole tool name
	// (PreToolUse, PostToolUse); "" or "*" matches every tool. Other
	// events ignore it.
	Matcher string    `json:"matcher,omitempty" yaml:"matcher"`
	Hooks   []Command `json:"hooks" yaml:"hooks"`
}

// Config is a hook configuration: event → groups. A nil or empty Config
// runs nothing.
type Config map[string][]Group

// Empty reports whether c holds no command.
func (c Config) Empty() bool {
	for _, gs := range c {
		for _, g := range gs {
			if len(g.Hooks) > 0 {
				return false
			}
		}
	}
	return true
}

// Commands lists every command of c, for a consent prompt: "Event
// [matcher]: command", in event order.
func (c Config) Commands() []string {
	var out []string
	for _, ev := range Events {
		for _, g := range c[ev] {
			for _, h := range g.Hooks {
				line := ev
				if g.Matcher != "" && g.Matcher != "*" && toolEvent(ev) {
					line += " [" + g.Matcher + "]"
				}
				out = append(out, line+": "+h.Command)
			}
		}
	}
	return out
}

// Digest is the sha256 (hex) of c's canonical JSON ("" for an empty
// Config): what a receipt and a project consent remember.
func (c Config) Digest() string {
	if c.Empty() {
		return ""
	}
	b, _ := json.Marshal(c) // map keys sorted, struct fields in order
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Matching returns the commands of event whose matcher accepts tool (tool
// is "" for events without a tool), in configuration order.
func (c Config) Matching(event, tool string) []Command {
	var out []Command
	for _, g := range c[event] {
		if toolEvent(event) && !matches(g.Matcher, tool) {
			continue
		}
		out = append(out, g.Hooks...)
	}
	return out
}

func toolEvent(ev string) bool { return ev == PreToolUse || ev == PostToolUse }

// matches: a validated matcher is a regular expression anchored at both
// ends; "" and "*" match everything.
func matches(matcher, tool string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	re, err := regexp.Compile(`^(?:` + matcher + `)$`)
	return err == nil && re.MatchString(tool)
}

// Parse decodes a hooks section (the value of config.yaml's hooks:, or a
// whole .hermes/hooks.yaml, which may also wrap it in a hooks: key) and
// validates it. Errors name the key path: "hooks.PreToolUse[0].hooks[1].timeout:
// want a number of seconds in (0, 3600]". Empty input is an empty Config.
func Parse(data []byte) (Config, error) {
	var n yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&n); err != nil {
		if errors.Is(err, io.EOF) {
			return Config{}, nil
		}
		return nil, fmt.Errorf("hooks: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(n.Content) == 0 {
		return Config{}, nil
	}
	root := n.Content[0]
	if root.Kind == yaml.MappingNode && len(root.Content) == 2 && root.Content[0].Value == "hooks" {
		root = root.Content[1]
	}
	return decode(root)
}

func decode(root *yaml.Node) (Config, error) {
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return Config{}, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("hooks: want a mapping of event names to lists of matchers")
	}
	c := Config{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		ev, val := root.Content[i].Value, root.Content[i+1]
		path := "hooks." + ev
		if !slices.Contains(Events, ev) {
			return nil, fmt.Errorf("%s: unknown event (want one of %s)", path, strings.Join(Events, ", "))
		}
		if _, dup := c[ev]; dup {
			return nil, fmt.Errorf("%s: duplicate key", path)
		}
		gs, err := decodeGroups(val, path)
		if err != nil {
			return nil, err
		}
		c[ev] = gs
	}
	return c, nil
}

func decodeGroups(n *yaml.Node, path string) ([]Group, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: want a list of {matcher, hooks}", path)
	}
	gs := make([]Group, 0, len(n.Content))
	for i, item := range n.Content {
		p := fmt.Sprintf("%s[%d]", path, i)
		if err := knownKeys(item, p, "matcher", "hooks"); err != nil {
			return nil, err
		}
		var g Group
		if err := item.Decode(&g); err != nil {
			return nil, fmt.Errorf("%s: want {matcher: a string, hooks: a list}", p)
		}
		if err := g.validate(p, item); err != nil {
			return nil, err
		}
		gs = append(gs, g)
	}
	return gs, nil
}

func (g Group) validate(path string, n *yaml.Node) error {
	if g.Matcher != "" && g.Matcher != "*" {
		if _, err := regexp.Compile(`^(?:` + g.Matcher + `)$`); err != nil {
			return fmt.Errorf("%s.matcher: want a regular expression: %v", path, err)
		}
	}
	if len(g.Hooks) == 0 {
		return fmt.Errorf("%s.hooks: want a non-empty list of {type: command, command}", path)
	}
	hooksNode := valueOf(n, "hooks")
	for j, h := range g.Hooks {
		p := fmt.Sprintf("%s.hooks[%d]", path, j)
		if hooksNode != nil && j < len(hooksNode.Content) {
			if err := knownKeys(hooksNode.Content[j], p, "type", "command", "timeout", "fail_closed"); err != nil {
				return err
			}
		}
		switch {
		case h.Type != "command":
			return fmt.Errorf("%s.type: want \"command\"", p)
		case strings.TrimSpace(h.Command) == "":
			return fmt.Errorf("%s.command: want a non-empty command line", p)
		case h.Timeout < 0 || h.Timeout > MaxTimeout.Seconds():
			return fmt.Errorf("%s.timeout: want a number of seconds in (0, %d]", p, int(MaxTimeout.Seconds()))
		}
	}
	return nil
}

// knownKeys refuses a key the shape does not have (a typo of fail_closed
// must not silently fail open).
func knownKeys(n *yaml.Node, path string, keys ...string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: want a mapping", path)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; !slices.Contains(keys, k) {
			return fmt.Errorf("%s.%s: unknown key (want %s)", path, k, strings.Join(keys, ", "))
		}
	}
	return nil
}

func valueOf(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
