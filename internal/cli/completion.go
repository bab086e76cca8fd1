package cli

import (
	"context"

	"github.com/spf13/cobra"
)

const completionLong = `completion prints a script that makes your shell complete hermes commands,
flags and session ids (from the running gateway; none is started for it).

  bash: source <(hermes completion bash)      # or save it in ~/.local/share/bash-completion/completions/hermes
  zsh:  hermes completion zsh > "${fpath[1]}/_hermes"
  fish: hermes completion fish > ~/.config/fish/completions/hermes.fish`

// completionCommand is `hermes completion bash|zsh|fish`.
func completionCommand(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:       "completion bash|zsh|fish",
		Short:     "print the shell completion script for bash, zsh or fish",
		Long:      completionLong,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("usage: hermes completion bash|zsh|fish")
			}
			return cobra.OnlyValidArgs(cmd, args)
		},
	}
	return e.leaf(c, func(_ context.Context, args []string) error {
		root, out := c.Root(), e.io.Out
		switch args[0] {
		case "bash":
			return root.GenBashCompletionV2(out, true)
		case "zsh":
			return root.GenZshCompletion(out)
		}
		return root.GenFishCompletion(out, true)
	})
}
