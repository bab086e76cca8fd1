package tools

import (
	"path"
	"regexp"
	"strings"
)

// This file holds the predicates of the classifier tables in rules.go.

var (
	diskDevice  = regexp.MustCompile(`^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|mapper/|loop|sr|nbd|rbd)`)
	numericMode = regexp.MustCompile(`^[0-7]{3,4}$`)
	symbolicFor = regexp.MustCompile(`^([ugoa]*)[+=]([rwxXst]*)$`)
)

// writeOps are redirections that write their target.
var writeOps = map[string]bool{">": true, ">>": true, ">|": true, "&>": true, "&>>": true, "<>": true}

// fileWriters modify or replace the files they are given as operands.
var fileWriters = map[string]bool{
	"cp": true, "mv": true, "install": true, "ln": true, "rsync": true, "scp": true,
	"tee": true, "rm": true, "unlink": true, "shred": true, "truncate": true,
	"chmod": true, "chown": true, "chgrp": true, "touch": true,
}

// writeTargets returns every path the command may write: redirection
// targets and the operands of file-modifying programs.
func writeTargets(c *cmdView) []string {
	var out []string
	for _, r := range c.redirects {
		if writeOps[r.op] {
			out = append(out, r.target)
		}
	}
	switch {
	case fileWriters[c.name]:
		out = append(out, rmOperands(c.args)...)
	case c.name == "sed" && (hasFlag(c.args, 'i', "--in-place")):
		out = append(out, rmOperands(c.args)...)
	case c.name == "dd":
		for _, a := range c.args {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// profileFiles are shell start-up files: writing them persists code.
var profileFiles = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".bash_logout": true,
	".profile": true, ".zshrc": true, ".zprofile": true, ".zshenv": true, ".zlogin": true,
	".cshrc": true, ".tcshrc": true, ".kshrc": true, "config.fish": true,
	".gitconfig": true, ".netrc": true, ".npmrc": true, ".pypirc": true,
}

// sensitiveParts mark sensitive paths wherever they occur.
var sensitiveParts = []string{".ssh/", ".git/hooks", ".git/config", ".hermes/", "$HERMES_HOME", ".aws/", ".kube/", ".gnupg/"}

// sensitivePath reports a path whose modification needs consent.
func sensitivePath(p string) bool {
	base := path.Base(p)
	if base == ".ssh" || base == ".env" || strings.HasPrefix(base, ".env.") || profileFiles[base] {
		return true
	}
	if strings.HasPrefix(p, "/") && (path.Clean(p) == "/etc" || strings.HasPrefix(path.Clean(p), "/etc/")) {
		return true
	}
	for _, part := range sensitiveParts {
		if strings.Contains(p, part) {
			return true
		}
	}
	return false
}

// wipesDisk matches raw writes to block devices and disk wipers.
func wipesDisk(c *cmdView) bool {
	switch c.name {
	case "wipefs", "blkdiscard":
		return true
	case "shred", "tee", "cp", "cat":
		if anyOf(c.args, diskDevice.MatchString) && c.name != "cat" {
			return true
		}
	case "dd":
		for _, a := range c.args {
			if v, ok := strings.CutPrefix(a, "of="); ok && diskDevice.MatchString(v) {
				return true
			}
		}
	}
	for _, r := range c.redirects {
		if writeOps[r.op] && diskDevice.MatchString(r.target) {
			return true
		}
	}
	return false
}

// shutsDown matches shutdown, reboot, halt, poweroff, init 0/6 and the
// systemctl equivalents.
func shutsDown(c *cmdView) bool {
	switch c.name {
	case "shutdown", "reboot", "halt", "poweroff":
		return true
	case "init", "telinit":
		return containsString(c.args, "0") || containsString(c.args, "6")
	case "systemctl":
		return anyOf(c.args, func(a string) bool {
			return a == "poweroff" || a == "reboot" || a == "halt" || a == "kexec"
		})
	}
	return false
}

// gitGlobals are git's global options that take a separate value.
var gitGlobals = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true, "--config-env": true}

// gitSub returns git's subcommand and its arguments; "" when not git.
func gitSub(c *cmdView) (sub string, args []string) {
	if c.name != "git" {
		return "", nil
	}
	for i := 0; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case gitGlobals[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a, c.args[i+1:]
		}
	}
	return "", nil
}

// gitExecKey matches git configuration keys whose value is run.
var gitExecKey = regexp.MustCompile(`(?i)(pager|command|editor|fsmonitor|hookspath|proxy|^alias\.|external|helper|program|^filter\.|hook|textconv)`)

// gitConfigExec matches "git -c core.pager=… " and "git config alias.x …".
func gitConfigExec(c *cmdView) bool {
	if c.name != "git" {
		return false
	}
	for i, a := range c.args {
		if (a == "-c" || a == "--config-env") && i+1 < len(c.args) && gitExecKey.MatchString(strings.SplitN(c.args[i+1], "=", 2)[0]) {
			return true
		}
	}
	sub, args := gitSub(c)
	if sub != "config" {
		return false
	}
	ops := rmOperands(args)
	return len(ops) >= 2 && gitExecKey.MatchString(ops[0])
}

func forcePush(args []string) bool {
	if hasFlag(args, 'f', "--force") || containsString(args, "--mirror") {
		return true
	}
	return anyOf(args, func(a string) bool {
		return strings.HasPrefix(a, "--force") || (strings.HasPrefix(a, "+") && len(a) > 1)
	})
}

// worldMode matches chmod modes that make files writable by everyone.
func worldMode(a string) bool {
	if numericMode.MatchString(a) {
		last := a[len(a)-1]
		return last == '2' || last == '3' || last == '6' || last == '7'
	}
	for _, clause := range strings.Split(a, ",") {
		m := symbolicFor.FindStringSubmatch(clause)
		if m != nil && strings.ContainsAny(m[1], "ao") && strings.Contains(m[2], "w") {
			return true
		}
	}
	return false
}

func findDeletes(args []string) bool {
	if containsString(args, "-delete") {
		return true
	}
	for _, words := range findExecs(args) {
		inner, _ := peel(words)
		if len(inner) > 0 && fileRemovers[path.Base(inner[0])] {
			return true
		}
	}
	return false
}

var fileRemovers = map[string]bool{"rm": true, "rmdir": true, "unlink": true, "shred": true}

func dockerRemoves(c *cmdView) bool {
	if c.name != "docker" && c.name != "podman" && c.name != "nerdctl" {
		return false
	}
	if containsString(c.args, "prune") {
		return true
	}
	removes := containsString(c.args, "rm") || containsString(c.args, "rmi")
	return removes && hasFlag(c.args, 'f', "--force")
}

// killsHard matches kill -9, -KILL, -SIGKILL, -s KILL, --signal=9 ….
func killsHard(args []string) bool {
	hard := func(sig string) bool {
		sig = strings.ToUpper(sig)
		return sig == "9" || sig == "KILL" || sig == "SIGKILL"
	}
	for i, a := range args {
		switch {
		case (a == "-s" || a == "-n" || a == "--signal") && i+1 < len(args):
			if hard(args[i+1]) {
				return true
			}
		case strings.HasPrefix(a, "--signal="):
			if hard(strings.TrimPrefix(a, "--signal=")) {
				return true
			}
		case strings.HasPrefix(a, "-") && hard(a[1:]):
			return true
		}
	}
	return false
}
