package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// rootLong is the top of `hermes --help`.
const rootLong = `hermes — a local gateway that owns coding-agent sessions.

The daemon (hermes gateway) keeps every session, its queue of prompts and
its transcript in one profile home; the clients (chat, acp, dashboard,
sessions) talk to it. A client starts the daemon when none runs, unless
--no-autostart.

Exit codes: 0 ok, 1 runtime error, 2 usage, 3 gateway unavailable,
4 turn not completed, 5 damaged database.`

// newRoot builds the command tree of one invocation; e receives the global
// flags and the streams.
func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:               "hermes",
		Short:             "a local gateway that owns coding-agent sessions",
		Long:              rootLong,
		Args:              rootArgs,
		RunE:              func(*cobra.Command, []string) error { return usagef("no command; run `hermes --help` for the list") },
		SilenceErrors:     true,
		SilenceUsage:      true,
		DisableAutoGenTag: true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: true},
	}
	root.SetIn(e.io.In)
	root.SetOut(e.io.Out)
	root.SetErr(e.io.Err)
	root.PersistentFlags().StringVar(&e.homeFlag, "home", "", "the profile home `DIR` (default $HERMES_HOME, else ~/.hermes)")
	root.SetFlagErrorFunc(flagError)
	root.SetHelpCommand(helpCommand(root))
	root.AddCommand(
		gatewayCommand(e),
		chatCommand(e),
		sessionsCommand(e),
		acpCommand(e),
		dashboardCommand(e),
		completionCommand(e),
		e.leaf(&cobra.Command{Use: "version", Short: "print the version, commit and Go version", Args: noArgs}, func(ctx context.Context, args []string) error {
			return versionCmd(ctx, e, args)
		}),
		workerCommand(e),
	)
	for _, c := range extraCommands {
		root.AddCommand(c(e))
	}
	addLegacy(root, e)
	return root
}

// extraCommands are commands that other files of this package add to the
// root (init-time registration), so root.go needs no change for them.
var extraCommands []func(*env) *cobra.Command

// leaf makes fn the code of c: the home is resolved first, and from then on
// an error is the command's own (exit code by its kind), not a usage error.
func (e *env) leaf(c *cobra.Command, fn func(ctx context.Context, args []string) error) *cobra.Command {
	c.RunE = func(cmd *cobra.Command, args []string) error {
		e.ran = true
		if err := e.resolveHome(); err != nil {
			return err
		}
		return fn(cmd.Context(), args)
	}
	return c
}

// group is a command that only holds verbs: without one, or with an
// unknown one, it is a usage error naming the verbs.
func group(c *cobra.Command, verbs ...*cobra.Command) *cobra.Command {
	c.Args = cobra.ArbitraryArgs
	c.AddCommand(verbs...)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usagef("%s needs a verb: %s (see `%s --help`)", cmd.Name(), verbList(cmd), cmd.CommandPath())
		}
		return unknownCommand(cmd, args[0])
	}
	return c
}

// verbList is "a, b or c" of cmd's visible subcommands.
func verbList(cmd *cobra.Command) string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func rootArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args[0])
	}
	return nil
}

// unknownCommand is the usage error for a word that names no subcommand of
// cmd, with the nearest names when there are any.
func unknownCommand(cmd *cobra.Command, word string) error {
	msg := fmt.Sprintf("unknown command %q for %q", word, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(word); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", strings.Join(s, `" or "`))
	} else {
		msg += fmt.Sprintf("; the commands are %s", verbList(cmd))
	}
	return usagef("%s (see `%s --help`)", msg, cmd.CommandPath())
}

// noArgs refuses positional arguments.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s: unexpected argument %q (see `%s --help`)", where(cmd), args[0], cmd.CommandPath())
	}
	return nil
}

// exactArgs wants n positional arguments.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("usage: %s (see `%s --help`)", cmd.UseLine(), cmd.CommandPath())
		}
		return nil
	}
}

// helpCommand is `hermes help [COMMAND…]`: the generated help of a
// command; an unknown one is a usage error.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]...",
		Short: "help about any command",
		Long:  "help prints the help of a command, with every flag: `hermes help sessions show`.",
		RunE: func(_ *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				word := strings.Join(args, " ")
				if len(rest) > 0 {
					word = rest[0]
				}
				if target == nil {
					target = root
				}
				return unknownCommand(target, word)
			}
			target.InitDefaultHelpFlag()
			return target.Help()
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			target, _, err := root.Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, c := range target.Commands() {
				if c.IsAvailableCommand() {
					out = append(out, cobra.CompletionWithDesc(c.Name(), c.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
	}
}
