package tools

import (
	"path"
	"regexp"
	"strings"
)

// wrapper describes a program that runs another program given as its
// remaining arguments.
type wrapper struct {
	argOpts    string   // short options that take a value
	longArgs   []string // long options that take a separate value
	positional int      // operands before the wrapped command (timeout DURATION)
	privileged bool
}

// wrappers are peeled off before the rules look at a command.
var wrappers = map[string]wrapper{
	"sudo":     {argOpts: "ugCDhprtUTR", longArgs: []string{"--user", "--group", "--chdir", "--prompt"}, privileged: true},
	"doas":     {argOpts: "uC", privileged: true},
	"pkexec":   {longArgs: []string{"--user"}, privileged: true},
	"env":      {argOpts: "uC", longArgs: []string{"--unset", "--chdir"}},
	"nohup":    {},
	"exec":     {argOpts: "a"},
	"command":  {},
	"builtin":  {},
	"time":     {argOpts: "fo", longArgs: []string{"--format", "--output"}},
	"nice":     {argOpts: "n", longArgs: []string{"--adjustment"}},
	"ionice":   {argOpts: "cnp"},
	"timeout":  {argOpts: "sk", longArgs: []string{"--signal", "--kill-after"}, positional: 1},
	"stdbuf":   {argOpts: "ioe"},
	"setsid":   {},
	"chronic":  {},
	"unbuffer": {},
	"busybox":  {},
	"chroot":   {positional: 1, privileged: true},
	"xargs": {argOpts: "IdEeLlnPsa", longArgs: []string{
		"--replace", "--delimiter", "--eof", "--max-lines", "--max-args",
		"--max-procs", "--max-chars", "--arg-file",
	}},
}

// keywords start a command without being it.
var keywords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true,
	"done": true, "while": true, "until": true, "!": true, "{": true, "}": true,
	"coproc": true,
}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=`)

// peel strips assignments, keywords and wrappers from the front of words
// and reports whether a privilege wrapper was among them.
func peel(words []string) (rest []string, privileged bool) {
	for len(words) > 0 {
		w := words[0]
		if assignment.MatchString(w) || keywords[w] {
			words = words[1:]
			continue
		}
		wr, ok := wrappers[path.Base(w)]
		if !ok {
			return words, privileged
		}
		if path.Base(w) == "command" && len(words) > 1 && (words[1] == "-v" || words[1] == "-V") {
			return nil, privileged // only looks the name up
		}
		privileged = privileged || wr.privileged
		if path.Base(w) == "env" {
			words = expandEnvS(words)
		}
		words = skipOptions(words[1:], wr)
	}
	return words, privileged
}

// skipOptions drops a wrapper's options (and their values) and positional
// operands, returning the wrapped command.
func skipOptions(args []string, wr wrapper) []string {
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		args = args[1:]
		if strings.HasPrefix(a, "--") {
			if !strings.Contains(a, "=") && containsString(wr.longArgs, a) && len(args) > 0 {
				args = args[1:]
			}
			continue
		}
		if i := strings.IndexAny(a[1:], wr.argOpts); wr.argOpts != "" && i >= 0 && i == len(a)-2 && len(args) > 0 {
			args = args[1:] // "-u root": the value is the next word
		}
	}
	if len(args) < wr.positional {
		return nil
	}
	return args[wr.positional:]
}

// expandEnvS replaces env's -S/--split-string value by the words it splits
// into, so the program inside is seen.
func expandEnvS(words []string) []string {
	out := []string{words[0]}
	for i := 1; i < len(words); i++ {
		a := words[i]
		switch {
		case (a == "-S" || a == "--split-string") && i+1 < len(words):
			i++
			out = append(out, strings.Fields(words[i])...)
		case strings.HasPrefix(a, "--split-string="):
			out = append(out, strings.Fields(strings.TrimPrefix(a, "--split-string="))...)
		case strings.HasPrefix(a, "-S"):
			out = append(out, strings.Fields(a[2:])...)
		default:
			out = append(out, a)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// shells run a script given with -c, a script file, or stdin.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true,
	"ash": true, "fish": true, "yash": true, "csh": true, "tcsh": true, "rbash": true,
}

// interpreters read a program from stdin when given no script operand.
var interpreters = map[string]string{ // name → option that takes inline code
	"python": "c", "python2": "c", "python3": "c", "perl": "e", "ruby": "e",
	"node": "e", "nodejs": "e", "php": "r", "lua": "e", "deno": "", "bun": "",
}

// carriedScripts returns the scripts a carrier command runs: the -c script
// of a shell, eval's arguments, su -c, watch's command.
func carriedScripts(c *cmdView) []string {
	switch {
	case shells[c.name]:
		if script, ok := shellInline(c.args); ok {
			return []string{script}
		}
	case c.name == "eval":
		return []string{strings.Join(c.args, " ")}
	case c.name == "watch":
		return []string{strings.Join(skipOptions(c.args, wrapper{argOpts: "n", longArgs: []string{"--interval"}}), " ")}
	case c.name == "su" || c.name == "runuser":
		for i, a := range c.args {
			if (a == "-c" || a == "--command") && i+1 < len(c.args) {
				return []string{c.args[i+1]}
			}
			if v, ok := strings.CutPrefix(a, "--command="); ok {
				return []string{v}
			}
		}
	}
	return nil
}

// shellInline finds the script of "sh [opts] -c SCRIPT" (also -lc, -ec …).
func shellInline(args []string) (string, bool) {
	inline, opts := false, true
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case opts && a == "--":
			opts = false
		case opts && (a == "-o" || a == "+o" || a == "--rcfile" || a == "--init-file"):
			i++
		case opts && strings.HasPrefix(a, "--"):
		case opts && len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			inline = inline || strings.Contains(a[1:], "c")
		default:
			return a, inline
		}
	}
	return "", false // "sh -c" without a script runs nothing
}

// readsStdin reports whether a shell or interpreter reads its program from
// stdin (no inline code, no script file, or "-", /dev/stdin or a process
// substitution as the script).
func readsStdin(c *cmdView) bool {
	inline, isInterp := interpreters[c.name]
	if !shells[c.name] && !isInterp {
		return false
	}
	for i := 0; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case a == "-" || a == "/dev/stdin" || strings.Contains(a, subMark):
			return true
		case a == "-s" && shells[c.name]:
			return true
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if isInterp && inline != "" && strings.HasPrefix(a, "-"+inline) {
				return false
			}
			if a == "-m" && isInterp {
				return false
			}
			if shells[c.name] && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
				return false
			}
		default:
			return false // a script file
		}
	}
	return true
}

// findExecs returns the commands of find's -exec/-execdir/-ok/-okdir.
func findExecs(args []string) [][]string {
	var out [][]string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			out = append(out, args[i+1:j])
			i = j
		}
	}
	return out
}
