package tools

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Level is how much consent a command needs.
type Level int

// Levels, in increasing severity: the most severe segment of a command wins.
const (
	Safe      Level = iota // runs without asking
	Dangerous              // runs only after the Approver consents
	Hardline               // never runs, not even with yolo
)

func (l Level) String() string {
	switch l {
	case Safe:
		return "safe"
	case Dangerous:
		return "dangerous"
	case Hardline:
		return "hardline"
	}
	return "unknown"
}

// Verdict is the classification of a command. Pattern is a stable key of
// the rule that matched (the Approver remembers "session"/"always" consent
// by it); Reason is the human explanation. Both are empty for Safe.
type Verdict struct {
	Level   Level
	Reason  string
	Pattern string
}

// raise replaces v by o when o is more severe.
func (v *Verdict) raise(o Verdict) {
	if o.Level > v.Level {
		*v = o
	}
}

const (
	maxCommandBytes = 64 << 10 // longer commands are always asked about
	maxDepth        = 8        // nesting of sh -c / eval / $(…) that is followed
)

// Classify decides whether command may run as is, needs consent or must
// never run. It splits the command with a quote-aware splitter, peels
// wrappers (sudo, env, nohup, xargs …), follows shell carriers (sh -c, eval,
// $(…), backquotes, heredocs fed to a shell) and checks every simple command
// against the hardline and dangerous tables. Anything it cannot follow (an
// unterminated quote, deep nesting, a computed command name, invisible
// characters, a huge command) is at least Dangerous: ask, never allow.
func Classify(command string) Verdict {
	var v Verdict
	if len(command) > maxCommandBytes {
		v.raise(Verdict{Dangerous, "the command is too long to check", "too_long"})
	}
	if hasHiddenChars(command) {
		v.raise(Verdict{Dangerous, "the command contains invisible or control characters", "hidden_chars"})
	}
	v.raise(classifyScript(command, 0))
	return v
}

// hasHiddenChars reports control, format (bidi, zero-width) or invalid
// characters other than tab, newline and carriage return.
func hasHiddenChars(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return true
			}
		}
		if r == '\t' || r == '\n' || r == '\r' {
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

// classifyScript classifies a whole script at nesting depth.
func classifyScript(s string, depth int) Verdict {
	if depth > maxDepth {
		return Verdict{Dangerous, "the command nests shells too deeply to check", "too_deep"}
	}
	var v Verdict
	for _, r := range textRules {
		if r.match(s) {
			v.raise(Verdict{r.level, r.reason, r.pattern})
		}
	}
	sc := splitScript(s)
	if sc.err != "" {
		v.raise(Verdict{Dangerous, "the command cannot be checked: " + sc.err, "unparsed"})
	}
	for _, sub := range sc.subs {
		v.raise(classifyScript(sub, depth+1))
	}
	for i := range sc.commands {
		v.raise(classifyCommand(&sc.commands[i], depth))
	}
	return v
}

// cmdView is a simple command after peeling wrappers: what rules look at.
type cmdView struct {
	name       string // base name of the program ("" for a bare redirection)
	args       []string
	redirects  []redirect
	stdin      []string
	piped      bool
	privileged bool // run through sudo, doas, su, pkexec …
}

// classifyCommand classifies one simple command, following carriers.
func classifyCommand(sc *simpleCommand, depth int) Verdict {
	words, privileged := peel(sc.words)
	c := &cmdView{redirects: sc.redirects, stdin: sc.stdin, piped: sc.piped, privileged: privileged}
	if len(words) > 0 {
		c.name, c.args = path.Base(words[0]), words[1:]
	}
	var v Verdict
	if len(words) > 0 && strings.ContainsAny(words[0], "$\x00") {
		v.raise(Verdict{Dangerous, "the command name is computed at run time", "computed_command"})
	}
	v.raise(classifyCarried(c, depth))
	for _, r := range hardlineRules {
		if r.match(c) {
			v.raise(Verdict{Hardline, r.reason, r.pattern})
			return v
		}
	}
	for _, r := range dangerousRules {
		if r.match(c) {
			v.raise(Verdict{Dangerous, r.reason, r.pattern})
			break
		}
	}
	return v
}

// classifyCarried classifies the scripts a command runs: sh -c, eval, su
// -c, watch, heredocs fed to a shell, and find -exec commands.
func classifyCarried(c *cmdView, depth int) Verdict {
	var v Verdict
	scripts := carriedScripts(c)
	if shells[c.name] && len(scripts) == 0 && readsStdin(c) {
		scripts = c.stdin
	}
	for _, s := range scripts {
		if strings.Contains(s, subMark) {
			v.raise(Verdict{Dangerous, "the command runs code generated at run time", "generated_code"})
		}
		v.raise(classifyScript(s, depth+1))
	}
	if c.name == "find" {
		for _, words := range findExecs(c.args) {
			v.raise(classifyCommand(&simpleCommand{words: words}, depth+1))
		}
	}
	return v
}
