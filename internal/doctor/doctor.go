// Package doctor checks a profile home and its machine the way `hermes
// doctor` reports them: one Check per concern, each one line of what was
// found and, when it fails, one line of what to do. It changes nothing: the
// database is read on a read-only connection, a listener is bound only to
// see that it can be and closed at once, and the one network request (the
// model endpoint, skipped when Offline) is a model list or a 1-token
// completion. API keys are sent to their endpoint and never printed; the
// endpoint's error bodies (which may echo a key) are never shown.
//
// It may import only config, control, daemon (CheckHome), sandbox and store,
// and must never import authority, server or dashboard: it inspects a home
// through its files, its database and its control socket, never by running
// the gateway's parts.
package doctor

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/hermes-gateway/hermes/internal/config"
	"github.com/hermes-gateway/hermes/internal/sandbox"
)

// Check names, in the order Run reports them.
const (
	CheckVersion  = "version"
	CheckHome     = "home"
	CheckConfig   = "config"
	CheckModel    = "model"
	CheckSandbox  = "sandbox"
	CheckDatabase = "database"
	CheckListener = "listener"
	CheckDisk     = "disk"
	CheckGit      = "git"
)

// DefaultMinFreeBytes is the free space under which the disk check fails.
const DefaultMinFreeBytes = 1 << 30

// Check is one line of the report. Fix is set when OK is false. A skipped
// check (Offline, or a config.yaml that does not load) is OK and says why
// in Detail.
type Check struct {
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Skipped bool   `json:"skipped,omitempty"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"`
}

// Options configure Run. Only Home is required; the rest have defaults and
// exist so tests can make each check fail alone.
type Options struct {
	Home    string // the profile home
	Offline bool   // skip the model endpoint request
	// Version is the binary's version; "" = from the build info.
	Version string
	// Executable serves the sandbox helper for the probe; "" =
	// os.Executable().
	Executable string
	// SandboxStatus returns what a mode enforces here; nil probes with
	// sandbox.New(Executable, mode).
	SandboxStatus func(sandbox.Mode) sandbox.Status
	HTTPClient    *http.Client // nil = a client with RequestTimeout
	MinFreeBytes  uint64       // 0 = DefaultMinFreeBytes
	// LookPath finds git; nil = exec.LookPath.
	LookPath func(string) (string, error)
	// Getenv reads HERMES_LISTEN; nil = os.Getenv.
	Getenv func(string) string
}

// RequestTimeout bounds the model endpoint request.
const RequestTimeout = 10 * time.Second

// Run runs every check and returns them in a fixed order.
func Run(ctx context.Context, opts Options) []Check {
	o := defaults(opts)
	cfg, cfgCheck := loadConfig(o.Home)
	ok := cfgCheck.OK
	return []Check{
		checkVersion(o.Version),
		checkHome(o.Home),
		cfgCheck,
		unlessBroken(ok, CheckModel, func() Check { return checkModel(ctx, o, cfg) }),
		unlessBroken(ok, CheckSandbox, func() Check { return checkSandbox(o, cfg) }),
		checkDatabase(ctx, filepath.Join(o.Home, "state.db")),
		unlessBroken(ok, CheckListener, func() Check { return checkListener(ctx, o, cfg) }),
		checkDisk(o.Home, o.MinFreeBytes),
		checkGit(ctx, o.LookPath, !ok || cfg.Checkpoints.Enabled),
	}
}

// AllOK reports whether every check passed (skipped ones count as passed):
// `hermes doctor` exits 0 exactly then.
func AllOK(checks []Check) bool {
	for _, c := range checks {
		if !c.OK {
			return false
		}
	}
	return true
}

func defaults(o Options) Options {
	if abs, err := filepath.Abs(o.Home); err == nil {
		o.Home = abs
	}
	if o.Executable == "" {
		o.Executable, _ = os.Executable()
	}
	if o.SandboxStatus == nil {
		exe := o.Executable
		o.SandboxStatus = func(m sandbox.Mode) sandbox.Status { return sandbox.New(exe, m).Status() }
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: RequestTimeout}
	}
	if o.MinFreeBytes == 0 {
		o.MinFreeBytes = DefaultMinFreeBytes
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	return o
}

// unlessBroken runs check only when config.yaml loaded.
func unlessBroken(configOK bool, name string, check func() Check) Check {
	if !configOK {
		return skipped(name, "config.yaml does not load (see the config check)")
	}
	return check()
}

func pass(name, detail string) Check { return Check{Name: name, OK: true, Detail: detail} }

func fail(name, detail, fix string) Check { return Check{Name: name, Detail: detail, Fix: fix} }

func skipped(name, why string) Check {
	return Check{Name: name, OK: true, Skipped: true, Detail: "skipped: " + why}
}

func loadConfig(home string) (config.Config, Check) {
	cfg, err := config.Load(home)
	if err != nil {
		return cfg, fail(CheckConfig, err.Error(), "fix "+filepath.Join(home, "config.yaml")+" (or move it away to use the defaults)")
	}
	return cfg, pass(CheckConfig, filepath.Join(home, "config.yaml")+" is valid")
}
