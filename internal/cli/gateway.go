package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-gateway/hermes/internal/control"
	"github.com/hermes-gateway/hermes/internal/daemon"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// gatewayCommand is `hermes gateway run|start|stop|status`: the daemon.
func gatewayCommand(e *env) *cobra.Command {
	var detached, asJSON bool
	run := e.leaf(&cobra.Command{
		Use:   "run",
		Short: "run the daemon in the foreground until SIGTERM or SIGINT",
		Long: "run takes the profile home, recovers what a previous daemon left, listens and serves\n" +
			"until SIGTERM or SIGINT. A graceful stop admits nothing new and gives running tools\n" +
			"gateway.shutdown_timeout to finish. Exit 3: the home is owned by another daemon;\n" +
			"exit 5: the database is damaged.",
		Args: noArgs,
	}, func(ctx context.Context, _ []string) error { return gatewayRun(ctx, e, detached) })
	run.Flags().BoolVar(&detached, "detached", false, "internal: started by `gateway start` (log only to the log file)")
	_ = run.Flags().MarkHidden("detached")
	status := e.leaf(&cobra.Command{
		Use:   "status",
		Short: "show the daemon's state, pid, epoch, listener, sessions and prompts (exit 3 when stopped)",
		Args:  noArgs,
	}, func(ctx context.Context, _ []string) error { return gatewayStatus(ctx, e, asJSON) })
	status.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	verbs := []*cobra.Command{
		run,
		e.leaf(&cobra.Command{Use: "start", Short: "start the daemon detached (output to logs/gateway.log) and wait until it is ready", Args: noArgs},
			func(ctx context.Context, _ []string) error { return gatewayStart(ctx, e) }),
		e.leaf(&cobra.Command{Use: "stop", Short: "stop the detached daemon gracefully", Args: noArgs},
			func(ctx context.Context, _ []string) error { return gatewayStop(ctx, e) }),
		status,
	}
	for _, v := range gatewayVerbs {
		verbs = append(verbs, v(e))
	}
	return group(&cobra.Command{Use: "gateway", Short: "the daemon: run, start, stop, status, logs, install as a service"}, verbs...)
}

// gatewayVerbs are verbs other files add to `hermes gateway`.
var gatewayVerbs []func(*env) *cobra.Command

func gatewayRun(ctx context.Context, e *env, detached bool) error {
	opts := daemon.Options{Home: e.home, Listen: os.Getenv("HERMES_LISTEN"), Stdout: e.io.Out}
	if exe, err := os.Executable(); err == nil {
		opts.WorkerCommand = []string{exe, "worker"}
	}
	if !detached {
		opts.Stderr = e.io.Err
	}
	return daemon.Run(ctx, opts)
}

func socketPath(home string) string { return filepath.Join(home, "gateway.sock") }

func identify(ctx context.Context, home string) (control.Identity, error) {
	var id control.Identity
	err := control.Call(ctx, socketPath(home), control.VerbIdentify, nil, &id)
	return id, err
}

// gatewayStart runs the daemon detached (own session and process group,
// output to logs/gateway.log) and waits until it is ready.
func gatewayStart(ctx context.Context, e *env) error {
	if id, err := identify(ctx, e.home); err == nil {
		fmt.Fprintf(e.io.Out, "gateway already running (pid %d, %s)\n", id.PID, id.APIOrigin)
		return nil
	}
	id, err := startDaemon(ctx, e.home)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.io.Out, "gateway started (pid %d, %s)\n", id.PID, id.APIOrigin)
	return nil
}

func startDaemon(ctx context.Context, home string) (control.Identity, error) {
	exe, err := os.Executable()
	if err != nil {
		return control.Identity{}, err
	}
	// The same check the daemon makes first, before this creates logs/ in
	// a home the daemon would refuse.
	if err := daemon.CheckHome(home); err != nil {
		return control.Identity{}, err
	}
	if err := os.MkdirAll(filepath.Join(home, "logs"), 0o700); err != nil {
		return control.Identity{}, failf(exitRuntime, "cannot create %s: %v", home, err)
	}
	logPath := filepath.Join(home, "logs", "gateway.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return control.Identity{}, failf(exitRuntime, "cannot open %s: %v", logPath, err)
	}
	defer logf.Close()
	cmd := exec.Command(exe, "--home", home, "gateway", "run", "--detached")
	cmd.Stdout, cmd.Stderr = io.Discard, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return control.Identity{}, failf(exitRuntime, "cannot start the gateway: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return awaitReady(ctx, home, exited, logPath)
}

// awaitReady polls identify until the daemon is ready or its process ended.
func awaitReady(ctx context.Context, home string, exited <-chan error, logPath string) (control.Identity, error) {
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if id, err := identify(ctx, home); err == nil && id.State == control.StateReady {
			return id, nil
		}
		select {
		case err := <-exited:
			code := exitRuntime
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() > 0 {
				code = ee.ExitCode()
			}
			return control.Identity{}, failf(code, "the gateway exited during start-up; see %s", logPath)
		case <-deadline.C:
			return control.Identity{}, failf(exitUnavailable, "the gateway did not become ready in 30s; see %s", logPath)
		case <-ctx.Done():
			return control.Identity{}, ctx.Err()
		case <-tick.C:
		}
	}
}

func gatewayStop(ctx context.Context, e *env) error {
	id, err := identify(ctx, e.home)
	if err != nil {
		fmt.Fprintf(e.io.Out, "no gateway is running on %s\n", e.home)
		return nil
	}
	if err := syscall.Kill(id.PID, syscall.SIGTERM); err != nil {
		return failf(exitRuntime, "cannot signal pid %d: %v", id.PID, err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(id.PID, 0) != nil {
			fmt.Fprintf(e.io.Out, "gateway stopped (pid %d)\n", id.PID)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return failf(exitRuntime, "pid %d did not stop within 60s", id.PID)
}

func gatewayStatus(ctx context.Context, e *env, asJSON bool) error {
	var st control.Status
	if err := control.Call(ctx, socketPath(e.home), control.VerbStatus, nil, &st); err != nil {
		if asJSON {
			_ = json.NewEncoder(e.io.Out).Encode(map[string]string{"state": "stopped"})
		} else {
			fmt.Fprintf(e.io.Out, "state:    stopped (no gateway on %s)\n", e.home)
		}
		return &exitError{code: exitUnavailable}
	}
	if asJSON {
		return json.NewEncoder(e.io.Out).Encode(st)
	}
	fmt.Fprintf(e.io.Out, "state:    %s\npid:      %d\nepoch:    %d\nlistener: %s\nhome:     %s\n",
		st.State, st.PID, st.AuthorityEpoch, st.APIOrigin, e.home)
	fmt.Fprintf(e.io.Out, "sessions: %d live\nprompts:  %d queued, %d running, %d unknown\n",
		st.SessionsLive, st.AdmissionsQueued, st.AdmissionsRunning, st.AdmissionsUnknown)
	if line := sandboxLine(st.Identity); line != "" {
		fmt.Fprintln(e.io.Out, line)
	}
	return nil
}

// sandboxLine is status's sandbox line: the mode, the level it builds here
// and the Landlock ABI, with a warning when tools run unsandboxed; "" from
// a gateway that reports no sandbox.
func sandboxLine(id control.Identity) string {
	if id.SandboxMode == "" {
		return ""
	}
	abi := "no Landlock"
	if id.LandlockABI > 0 {
		abi = fmt.Sprintf("landlock ABI %d", id.LandlockABI)
	}
	line := fmt.Sprintf("sandbox:  %s (%s, %s)", id.SandboxMode, id.SandboxLevel, abi)
	if id.SandboxLevel == protocol.SandboxLevelNone {
		line += "\nWARNING:  tool processes run without a sandbox, with all of your rights"
	}
	return line
}
