package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// normalizeArgs keeps the command lines of the Go flag package working
// under cobra's POSIX flags (docs/protocol.md#commands is a contract): a
// long flag with one dash (-json, -resume ID, -no-autostart) or a short one
// with two (--q TEXT) is rewritten to its canonical spelling. It walks the
// command tree as cobra will, so a flag's value is never taken for a flag:
// `-q -json` still submits the text "-json". Unknown words are left as they
// are, for cobra to refuse (with a suggestion, see flagError).
func normalizeArgs(root *cobra.Command, args []string) []string {
	out := make([]string, 0, len(args))
	cmd, verbsDone := root, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case len(a) < 2 || a[0] != '-':
			if sub := subcommand(cmd, a); sub != nil && !verbsDone {
				cmd = sub
			} else {
				verbsDone = true // a positional: later words are arguments, not verbs
			}
			out = append(out, a)
			continue
		case cmd.DisableFlagParsing:
			out = append(out, a)
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, val, hasVal := strings.Cut(name, "=")
		if name == "help" || name == "h" {
			out = append(out, "--help")
			continue
		}
		f := lookupFlag(cmd, name)
		if f == nil {
			out = append(out, a)
			continue
		}
		canon := "--" + f.Name
		if hasVal {
			canon += "=" + val
		}
		out = append(out, canon)
		if !hasVal && f.NoOptDefVal == "" && i+1 < len(args) {
			i++
			out = append(out, args[i]) // the flag's value, whatever it looks like
		}
	}
	return out
}

func subcommand(cmd *cobra.Command, word string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == word || c.HasAlias(word) {
			return c
		}
	}
	return nil
}

// lookupFlag finds a flag of cmd (its own, persistent or inherited) by long
// name, or by shorthand when name is one letter.
func lookupFlag(cmd *cobra.Command, name string) *pflag.Flag {
	for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.PersistentFlags(), cmd.InheritedFlags()} {
		if len(name) == 1 {
			if f := fs.ShorthandLookup(name); f != nil {
				return f
			}
		}
		if f := fs.Lookup(name); f != nil {
			return f
		}
	}
	return nil
}

// flagError turns a flag parsing error into a usage error (exit 2) that
// says what to do: the nearest flag of the command, and where its help is.
func flagError(cmd *cobra.Command, err error) error {
	hint := fmt.Sprintf("see `%s --help`", cmd.CommandPath())
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		name := ne.GetSpecifiedName()
		if s := ne.GetSpecifiedShortnames(); len(s) > 1 {
			name = s // -contine: a long name typed with one dash
		}
		if near := nearestFlag(cmd, name); near != "" {
			return usagef("%s: %v; did you mean --%s? (%s)", where(cmd), err, near, hint)
		}
	}
	return usagef("%s: %v (%s)", where(cmd), err, hint)
}

// where names cmd in a message that "hermes: " already starts.
func where(cmd *cobra.Command) string {
	if !cmd.HasParent() {
		return cmd.Name()
	}
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

// nearestFlag is the visible flag of cmd closest to name by edit distance,
// or one that name abbreviates; "" when none is close.
func nearestFlag(cmd *cobra.Command, name string) string {
	if len(name) < 2 {
		return ""
	}
	best, bestD := "", max(2, len(name)/3)+1
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
