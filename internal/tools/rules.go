package tools

import (
	"path"
	"regexp"
	"strings"
)

// rule is one row of a classifier table: a stable pattern key, the reason
// shown to the human, and the predicate over a peeled simple command.
type rule struct {
	pattern string
	reason  string
	match   func(c *cmdView) bool
}

// hardlineRules never run, whoever consents.
var hardlineRules = []rule{
	{"delete_root", "recursively deletes the root, a system directory or the home directory",
		func(c *cmdView) bool {
			return c.name == "rm" && rmRecursive(c.args) && anyOf(rmOperands(c.args), criticalPath)
		}},
	{"mkfs", "formats a filesystem",
		func(c *cmdView) bool {
			return c.name == "mke2fs" || c.name == "mkswap" || strings.HasPrefix(c.name, "mkfs")
		}},
	{"wipe_disk", "overwrites or wipes a disk device", wipesDisk},
	{"kill_all", "kills every process the user may signal",
		func(c *cmdView) bool { return c.name == "kill" && containsString(c.args, "-1") }},
	{"shutdown", "shuts down or reboots the machine", shutsDown},
}

// dangerousRules run only after consent.
var dangerousRules = []rule{
	{"rm_recursive", "recursively deletes files",
		func(c *cmdView) bool { return c.name == "rm" && rmRecursive(c.args) }},
	{"sensitive_write", "modifies a sensitive file (ssh keys, .env, shell profile, /etc, git hooks or config)",
		func(c *cmdView) bool { return anyOf(writeTargets(c), sensitivePath) }},
	{"git_reset_hard", "discards uncommitted changes (git reset --hard)",
		func(c *cmdView) bool { sub, args := gitSub(c); return sub == "reset" && containsString(args, "--hard") }},
	{"git_clean_force", "deletes untracked files (git clean -f)",
		func(c *cmdView) bool { sub, args := gitSub(c); return sub == "clean" && hasFlag(args, 'f', "--force") }},
	{"git_push_force", "force-pushes and may overwrite remote history",
		func(c *cmdView) bool { sub, args := gitSub(c); return sub == "push" && forcePush(args) }},
	{"git_config_exec", "sets a git option that runs a program", gitConfigExec},
	{"chmod_world", "makes files world-writable (chmod 777)",
		func(c *cmdView) bool { return c.name == "chmod" && anyOf(c.args, worldMode) }},
	{"chown_recursive", "recursively changes file ownership",
		func(c *cmdView) bool {
			return (c.name == "chown" || c.name == "chgrp") && hasFlag(c.args, 'R', "--recursive")
		}},
	{"pipe_to_shell", "runs a program read from a pipe or a process substitution (curl | sh)",
		func(c *cmdView) bool { return readsStdin(c) && (c.piped || anyOf(c.args, hasSubMark)) }},
	{"crontab_change", "replaces or removes the crontab",
		func(c *cmdView) bool { return c.name == "crontab" && !(len(c.args) == 1 && c.args[0] == "-l") }},
	{"find_delete", "deletes files found by find",
		func(c *cmdView) bool { return c.name == "find" && findDeletes(c.args) }},
	{"truncate", "truncates files", func(c *cmdView) bool { return c.name == "truncate" }},
	{"dd", "copies raw data with dd", func(c *cmdView) bool { return c.name == "dd" }},
	{"privileged", "runs with elevated privileges (sudo)",
		func(c *cmdView) bool { return c.privileged || c.name == "su" || c.name == "runuser" }},
	{"docker_remove", "force-removes containers or prunes docker data", dockerRemoves},
	{"kill_force", "force-kills processes",
		func(c *cmdView) bool {
			return c.name == "pkill" || c.name == "killall" || (c.name == "kill" && killsHard(c.args))
		}},
}

// textRule matches the raw text of a script, for shapes the splitter does
// not model (fork bombs, SQL).
type textRule struct {
	level   Level
	pattern string
	reason  string
	match   func(s string) bool
}

var (
	forkHead = regexp.MustCompile(`([A-Za-z_:][A-Za-z0-9_:.]*)\(\)\{`)
	sqlDrop  = regexp.MustCompile(`(?i)\b(drop\s+(table|database|schema)|truncate\s+table)\b`)
)

var textRules = []textRule{
	{Hardline, "fork_bomb", "is a fork bomb", forkBomb},
	{Dangerous, "sql_drop", "drops or truncates database tables", sqlDrop.MatchString},
}

// forkBomb finds "f(){ f|f& };f" in any spacing.
func forkBomb(s string) bool {
	compact := strings.Join(strings.Fields(s), "")
	seen := map[string]bool{}
	for _, m := range forkHead.FindAllStringSubmatch(compact, -1) {
		f := m[1]
		if seen[f] {
			continue
		}
		seen[f] = true
		if strings.Contains(compact, f+"|"+f+"&") {
			return true
		}
	}
	return false
}

func hasSubMark(s string) bool { return strings.Contains(s, subMark) }

func anyOf(list []string, pred func(string) bool) bool {
	for _, s := range list {
		if pred(s) {
			return true
		}
	}
	return false
}

// hasFlag reports a short flag (alone or in a cluster) or a long flag.
func hasFlag(args []string, short byte, long string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == long || strings.HasPrefix(a, long+"=") {
			return true
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], short) >= 0 {
			return true
		}
	}
	return false
}

func rmRecursive(args []string) bool {
	return hasFlag(args, 'r', "--recursive") || hasFlag(args, 'R', "--recursive")
}

// rmOperands returns rm's non-option arguments.
func rmOperands(args []string) []string {
	var out []string
	opts := true
	for _, a := range args {
		switch {
		case opts && a == "--":
			opts = false
		case opts && strings.HasPrefix(a, "-") && len(a) > 1:
		default:
			out = append(out, a)
		}
	}
	return out
}

const homeStandIn = "/\x01home"

// criticalDirs may never be deleted recursively.
var criticalDirs = map[string]bool{
	"/": true, homeStandIn: true, "/etc": true, "/usr": true, "/bin": true, "/sbin": true,
	"/boot": true, "/lib": true, "/lib32": true, "/lib64": true, "/var": true, "/sys": true,
	"/proc": true, "/dev": true, "/home": true, "/root": true, "/opt": true, "/srv": true,
}

// criticalPath reports /, a system directory or the home directory, also
// as "/etc/", "/*", "~", "$HOME/*", "${HOME}" or "/tmp/../".
func criticalPath(p string) bool {
	p = strings.ReplaceAll(p, "${HOME}", "$HOME")
	for _, h := range []string{"~", "$HOME"} {
		if p == h || strings.HasPrefix(p, h+"/") {
			p = homeStandIn + p[len(h):]
			break
		}
	}
	if !strings.HasPrefix(p, "/") {
		return false
	}
	p = path.Clean(p)
	for strings.HasSuffix(p, "/*") || strings.HasSuffix(p, "/.*") {
		p = path.Clean("/" + strings.TrimSuffix(strings.TrimSuffix(p, "/*"), "/.*"))
	}
	return criticalDirs[p]
}
