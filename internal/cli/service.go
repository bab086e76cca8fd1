package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hermes-gateway/hermes/internal/logfile"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/service"
)

func init() {
	gatewayVerbs = append(gatewayVerbs, gatewayInstallCommand, gatewayUninstallCommand, gatewayLogsCommand)
}

func gatewayInstallCommand(e *env) *cobra.Command {
	return e.leaf(&cobra.Command{
		Use:   "install",
		Short: "write, enable and start a systemd user unit running this gateway",
		Long: "install writes ~/.config/systemd/user/" + service.UnitName + " for this profile home and\n" +
			"binary, reloads the user manager and enables and starts it. It says how to keep the\n" +
			"gateway running after logout when lingering is off.",
		Args: noArgs,
	}, func(ctx context.Context, _ []string) error {
		res, err := service.Install(ctx, service.Options{Home: e.home})
		if err != nil {
			return failf(exitRuntime, "gateway install: %v", err)
		}
		verb := "installed"
		if res.Replaced {
			verb = "replaced"
		}
		fmt.Fprintf(e.io.Out, "%s %s; %s is enabled and started\n", verb, res.UnitPath, service.UnitName)
		if res.Hint != "" {
			fmt.Fprintln(e.io.Out, res.Hint)
		}
		return nil
	})
}

func gatewayUninstallCommand(e *env) *cobra.Command {
	return e.leaf(&cobra.Command{
		Use:   "uninstall",
		Short: "stop, disable and remove the systemd user unit",
		Args:  noArgs,
	}, func(ctx context.Context, _ []string) error {
		res, err := service.Uninstall(ctx, service.Options{Home: e.home})
		if err != nil {
			return failf(exitRuntime, "gateway uninstall: %v", err)
		}
		if !res.Removed {
			fmt.Fprintf(e.io.Out, "no unit at %s: nothing to do\n", res.UnitPath)
			return nil
		}
		fmt.Fprintf(e.io.Out, "stopped, disabled and removed %s\n", res.UnitPath)
		return nil
	})
}

func gatewayLogsCommand(e *env) *cobra.Command {
	var follow bool
	var lines int
	c := e.leaf(&cobra.Command{
		Use:   "logs",
		Short: "print logs/gateway.log (-f: and follow it, across rotations, until Ctrl-C)",
		Args:  noArgs,
	}, func(ctx context.Context, _ []string) error {
		path := filepath.Join(e.home, "logs", "gateway.log")
		err := logfile.TailLines(ctx, path, lines, follow, &visibleLines{w: e.io.Out})
		if errors.Is(err, fs.ErrNotExist) {
			return failf(exitRuntime, "no log at %s yet (the daemon writes it when started with `hermes gateway start`)", path)
		}
		if err != nil {
			return failf(exitRuntime, "gateway logs: %v", err)
		}
		return nil
	})
	c.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing what is appended")
	c.Flags().IntVarP(&lines, "lines", "n", 0, "start at the last `N` lines (default: the whole file)")
	return c
}

// visibleLines writes whole lines through protocol.VisibleText, so a log
// line cannot drive the terminal; a partial line waits for its end.
type visibleLines struct {
	w   io.Writer
	buf []byte
}

func (v *visibleLines) Write(p []byte) (int, error) {
	v.buf = append(v.buf, p...)
	i := bytes.LastIndexByte(v.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(v.w, protocol.VisibleText(string(v.buf[:i+1]))); err != nil {
		return 0, err
	}
	v.buf = append(v.buf[:0], v.buf[i+1:]...)
	return len(p), nil
}
