package tui

import (
	"regexp"
	"strings"
)

// A stored tool result (a snapshot's role "tool" message) has no error
// flag: the model sees failures as text. toolError recognizes the gateway's
// own failure wording so that a reconnect shows a denied or failed call as
// ✗, as the live tool.complete event (which carries `error`) did.
//
// The rule errs towards ✓: a prefix counts only where a successful result
// of that tool cannot start with it. terminal passes its command's output
// through, so for it only the texts the gateway writes around a command
// count (approval, policy, dispatch) plus the marker line it appends to the
// output of a command that failed; the other tools answer with structured
// text (JSON, "N\tline", "wrote …"), so their error sentences count too.
var (
	// gatewayFailures start the results the gateway writes for any tool:
	// denied or blocked commands, bad arguments, calls cut off by the end
	// of the turn (internal/tools, internal/agent).
	gatewayFailures = []string{
		"denied by the user: ",
		"blocked: ",
		"invalid arguments",
		"unknown tool ",
		"interrupted: the turn was interrupted",
		"not run: the turn ended",
		"error: the tool failed",
		"cannot start bash: ",
	}
	// toolFailures start the error results of the tools other than
	// terminal.
	toolFailures = []string{
		"cannot ",
		"invalid ",
		"unknown skill ",
		"old text ",
		"no graphical viewer",
		"no skills directory",
		"no viewer can answer",
	}
	// terminalMarker is the last line terminal appends to the output of a
	// command that exited non-zero, timed out or could not be waited for.
	terminalMarker = regexp.MustCompile(`^\[(exit code -?\d+|timed out after .*|command failed: .*)\]$`)
	// toolSuffixes end the error results of read_file.
	toolSuffixes = []string{" is a directory", " is a binary file"}
)

// toolError is the error line of a stored result of tool name, or "" when
// the result reads as a success.
func toolError(name, content string) string {
	text := strings.TrimSpace(content)
	first, _, _ := strings.Cut(text, "\n")
	if hasAnyPrefix(text, gatewayFailures) {
		return first
	}
	if name == "terminal" {
		last := text[strings.LastIndexByte(text, '\n')+1:]
		if terminalMarker.MatchString(last) {
			return last
		}
		return ""
	}
	if hasAnyPrefix(text, toolFailures) || (!strings.Contains(text, "\n") && hasAnySuffix(text, toolSuffixes)) {
		return first
	}
	return ""
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func hasAnySuffix(s string, suffixes []string) bool {
	for _, p := range suffixes {
		if strings.HasSuffix(s, p) {
			return true
		}
	}
	return false
}
