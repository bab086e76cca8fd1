package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// Exit statuses of the helper itself, as env(1) has them, so that a caller
// can tell the sandbox failing from the command failing.
const (
	exitSetup       = 125 // the sandbox could not be built; nothing ran
	exitCannotExec  = 126
	exitNotFound    = 127
	helperErrPrefix = "hermes sandbox: "
)

// stepError names the step of the helper that failed.
type stepError struct {
	what string
	err  error
}

func (e *stepError) Error() string { return e.what + ": " + e.err.Error() }

func step(what string, err error) error {
	if err == nil {
		return nil
	}
	return &stepError{what, err}
}

// runHelper builds the sandbox and execs the command; it never returns.
// Everything happens on one locked OS thread: no_new_privs, the capability
// sets, the Landlock domain and the seccomp filter are per thread, and the
// command inherits them because execve runs on this same thread. Nothing is
// applied to the runtime's other threads; execve ends them.
func runHelper(args []string) {
	runtime.LockOSThread()
	spec, argv, err := parseHelperArgs(args)
	if err == nil {
		err = build(spec)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s%v\n", helperErrPrefix, err)
		os.Exit(exitSetup)
	}
	if spec.Probe {
		os.Exit(0)
	}
	os.Exit(execCommand(argv))
}

func parseHelperArgs(args []string) (helperSpec, []string, error) {
	var spec helperSpec
	if len(args) < 3 || args[1] != "--" {
		return spec, nil, errors.New("usage: hermes " + HelperArg + " POLICY-JSON -- ARGV…")
	}
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		return spec, nil, step("decode policy", err)
	}
	return spec, args[2:], nil
}

// build turns this process into the sandbox, in the only order that
// works: the uid and gid maps first (unmapped, this process can create no
// file); mounts while we hold CAP_SYS_ADMIN in the namespace; chdir after
// them (the old cwd is below the read-only remount); no_new_privs before
// Landlock and seccomp (both need it without CAP_SYS_ADMIN); capabilities
// dropped after the Landlock rules are opened; seccomp last, as it refuses
// the calls the earlier steps make.
func build(spec helperSpec) error {
	if spec.Level == LevelFull {
		if err := enterNamespaces(spec.UID, spec.GID); err != nil {
			return err
		}
		if err := buildView(spec.Policy); err != nil {
			return err
		}
		if !spec.Network {
			if err := loopbackUp(); err != nil {
				return step("bring up loopback", err)
			}
		}
	}
	if err := os.Chdir(spec.Cwd); err != nil {
		return step("enter cwd", err)
	}
	if err := setNoNewPrivs(); err != nil {
		return step("set no_new_privs", err)
	}
	if spec.ABI > 0 {
		if err := applyLandlock(spec); err != nil {
			return err
		}
	}
	if err := dropCapabilities(); err != nil {
		return step("drop capabilities", err)
	}
	return step("install seccomp filter", installSeccomp())
}

// execCommand replaces the helper with argv, found on the command's PATH
// (the helper runs with the command's environment) relative to the cwd
// inside. It returns only on failure, with env(1)'s status.
func execCommand(argv []string) int {
	path, err := exec.LookPath(argv[0])
	if errors.Is(err, exec.ErrDot) {
		err = nil // a shell would run ./x from a PATH with "."; so do we
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s%s: %v\n", helperErrPrefix, argv[0], err)
		return exitNotFound
	}
	// The daemon runs with umask 077 (its own files are private); the
	// user's work is not the daemon's state, so tools create files with the
	// usual 022, as they would in the user's shell.
	syscall.Umask(0o022)
	err = syscall.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "%sexec %s: %v\n", helperErrPrefix, argv[0], err)
	if errors.Is(err, syscall.ENOENT) {
		return exitNotFound
	}
	return exitCannotExec
}
