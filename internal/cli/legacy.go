package cli

import (
	"context"
	"errors"
	"flag"
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// command is the shape of a command that parses its own arguments with the
// flag package. New commands are cobra commands (extraCommands); this shape
// stays so that a file written against it keeps compiling and working.
type command func(ctx context.Context, e *env, args []string) error

// commands are self-parsing commands registered by name from init; each
// becomes a cobra command that hands it its raw arguments.
var commands = map[string]command{}

func addLegacy(root *cobra.Command, e *env) {
	names := make([]string, 0, len(commands))
	for name := range commands {
		if subcommand(root, name) == nil {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		fn := commands[name]
		c := &cobra.Command{Use: name, Short: "see `hermes " + name + " -h`", DisableFlagParsing: true}
		root.AddCommand(e.leaf(c, func(ctx context.Context, args []string) error {
			args = e.takeHome(args)
			if err := e.resolveHome(); err != nil {
				return err
			}
			return fn(ctx, e, args)
		}))
	}
}

// takeHome removes --home DIR (or --home=DIR) from the arguments of a
// self-parsing command, as the global flag it is.
func (e *env) takeHome(args []string) []string {
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case (a == "--home" || a == "-home") && i+1 < len(args):
			e.homeFlag = args[i+1]
			i++
		case strings.HasPrefix(a, "--home="):
			e.homeFlag = strings.TrimPrefix(a, "--home=")
		default:
			rest = append(rest, a)
		}
	}
	return rest
}

// newFlags is a flag set for a self-parsing command; errors go to stderr.
//
//lint:ignore U1000 kept for self-parsing commands (see command) that other files may add
func newFlags(name string, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.io.Err)
	return fs
}

// parse parses a self-parsing command's flags: -h is exit 0, a bad flag 2.
//
//lint:ignore U1000 kept for self-parsing commands (see command) that other files may add
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &exitError{code: exitOK}
		}
		return &exitError{code: exitUsage}
	}
	return nil
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, and returns the positionals.
//
//lint:ignore U1000 kept for self-parsing commands (see command) that other files may add
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parse(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
