package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hermes-gateway/hermes/internal/doctor"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

func init() { extraCommands = append(extraCommands, doctorCommand) }

const doctorLong = `doctor checks the profile home and this machine, one line each, with a fix
for what fails: the version, the home's ownership and modes, config.yaml, the
model endpoint and its key (one tiny request; none with --offline), the tool
sandbox, the database (quick_check, read only), the listener, free disk and
git (for checkpoints). It changes nothing. Exit 0 only when every check passes.`

func doctorCommand(e *env) *cobra.Command {
	var offline, asJSON bool
	c := e.leaf(&cobra.Command{
		Use:   "doctor",
		Short: "check the profile home and this machine, and say how to fix what fails",
		Long:  doctorLong,
		Args:  noArgs,
	}, func(ctx context.Context, _ []string) error { return doctorRun(ctx, e, offline, asJSON) })
	c.Flags().BoolVar(&offline, "offline", false, "skip the model endpoint request")
	c.Flags().BoolVar(&asJSON, "json", false, "print the checks as JSON")
	return c
}

// doctorReport is `hermes doctor --json`.
type doctorReport struct {
	OK     bool           `json:"ok"`
	Checks []doctor.Check `json:"checks"`
}

func doctorRun(ctx context.Context, e *env, offline, asJSON bool) error {
	checks := doctor.Run(ctx, doctor.Options{Home: e.home, Offline: offline, Version: Version})
	ok := doctor.AllOK(checks)
	if asJSON {
		if err := writeJSON(e.io.Out, doctorReport{OK: ok, Checks: checks}); err != nil {
			return err
		}
	} else {
		for _, c := range checks {
			mark := "ok  "
			switch {
			case !c.OK:
				mark = "FAIL"
			case c.Skipped:
				mark = "skip"
			}
			fmt.Fprintf(e.io.Out, "%s  %-9s %s\n", mark, c.Name, protocol.Visible(c.Detail))
			if !c.OK && c.Fix != "" {
				fmt.Fprintf(e.io.Out, "      %-9s fix: %s\n", "", protocol.Visible(c.Fix))
			}
		}
	}
	if !ok {
		return &exitError{code: exitRuntime} // the report said it all
	}
	return nil
}
