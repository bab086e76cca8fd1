package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/hermes-gateway/hermes/internal/config"
	"github.com/hermes-gateway/hermes/internal/control"
	"github.com/hermes-gateway/hermes/internal/daemon"
	"github.com/hermes-gateway/hermes/internal/sandbox"
	"github.com/hermes-gateway/hermes/internal/store"
)

func checkVersion(v string) Check {
	if v == "" {
		v = buildVersion()
	}
	return pass(CheckVersion, fmt.Sprintf("hermes %s (%s, %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH))
}

// buildVersion is the module version, else the VCS revision, of the binary.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && (v == "" || v == "(devel)") && len(s.Value) >= 12 {
			v = "devel " + s.Value[:12]
		}
	}
	if v == "" {
		v = "(devel)"
	}
	return v
}

// privateFiles are the files of a home that hold secrets or state and must
// be owner-only.
var privateFiles = []string{"config.yaml", ".env", "state.db", "state.db-wal", "dashboard.token", "logs"}

// checkHome applies the daemon's own home rule (daemon.CheckHome) and
// checks that the secret-holding files in it are owner-only.
func checkHome(home string) Check {
	if _, err := os.Stat(home); errors.Is(err, fs.ErrNotExist) {
		return pass(CheckHome, home+" does not exist yet (the gateway creates it, mode 0700)")
	}
	if err := daemon.CheckHome(home); err != nil {
		return fail(CheckHome, err.Error(), homeFix(err.Error(), home))
	}
	for _, name := range privateFiles {
		p := filepath.Join(home, name)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		st, _ := fi.Sys().(*syscall.Stat_t)
		switch {
		case st != nil && int(st.Uid) != os.Geteuid():
			return fail(CheckHome, fmt.Sprintf("%s is owned by uid %d, not you", p, st.Uid), fmt.Sprintf("run `chown %d %s`", os.Geteuid(), p))
		case fi.Mode().Perm()&0o077 != 0:
			mode := "600"
			if fi.IsDir() {
				mode = "700"
			}
			return fail(CheckHome, fmt.Sprintf("%s is readable or writable by others (mode %04o)", p, fi.Mode().Perm()),
				fmt.Sprintf("run `chmod %s %s`", mode, p))
		}
	}
	return pass(CheckHome, home+" is yours and private (0700), and so are its files")
}

// homeFix turns CheckHome's message (which ends in what to do) into a fix.
func homeFix(msg, home string) string {
	if i := strings.LastIndex(msg, "; "); i >= 0 {
		return msg[i+2:]
	}
	return "use a home of your own: `chmod 700 " + home + "`"
}

func checkSandbox(o Options, cfg config.Config) Check {
	mode := sandbox.Mode(cfg.Sandbox.Mode)
	st := o.SandboxStatus(mode)
	nsFix := "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ also kernel.apparmor_restrict_unprivileged_userns=0)"
	switch {
	case mode == sandbox.ModeOff:
		return pass(CheckSandbox, "sandbox.mode is off: tools run without a sandbox (your choice in config.yaml)")
	case st.Level == sandbox.LevelFull:
		return pass(CheckSandbox, fmt.Sprintf("sandbox.mode %s: full (user namespaces, Landlock ABI %d, seccomp)", mode, st.LandlockABI))
	case mode == sandbox.ModeStrict:
		return fail(CheckSandbox, fmt.Sprintf("sandbox.mode strict needs the full sandbox, which is unavailable here (%s): no tool can run", st.Detail),
			nsFix+", or set sandbox.mode: auto")
	case st.Level == sandbox.LevelLandlock:
		return pass(CheckSandbox, fmt.Sprintf("sandbox.mode auto: landlock+seccomp only, weaker than full (%s)", st.Detail))
	}
	return fail(CheckSandbox, fmt.Sprintf("sandbox.mode %s: neither user namespaces nor Landlock work here (%s)", mode, st.Detail),
		nsFix+", or use a kernel with Landlock (5.13+)")
}

func checkDatabase(ctx context.Context, path string) Check {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return pass(CheckDatabase, "state.db does not exist yet (the gateway creates it)")
	}
	err := store.QuickCheck(ctx, path)
	switch {
	case errors.Is(err, store.ErrCorrupt):
		return fail(CheckDatabase, "state.db is damaged: "+err.Error(),
			"the gateway refuses to start on it: restore a backup, or move "+path+" (and its -wal) away to start empty")
	case err != nil:
		return fail(CheckDatabase, "cannot check state.db: "+err.Error(), "check that "+path+" is readable by you")
	}
	return pass(CheckDatabase, "state.db passes quick_check")
}

// checkListener: a running gateway answers identify on the control socket;
// otherwise the address it would listen on must be bindable.
func checkListener(ctx context.Context, o Options, cfg config.Config) Check {
	var id control.Identity
	if err := control.Call(ctx, filepath.Join(o.Home, "gateway.sock"), control.VerbIdentify, nil, &id); err == nil {
		return pass(CheckListener, fmt.Sprintf("a gateway is running (pid %d, %s, %s)", id.PID, id.State, id.APIOrigin))
	}
	if err := cfg.ApplyEnv(o.Getenv); err != nil {
		return fail(CheckListener, err.Error(), "give HERMES_LISTEN an address like 127.0.0.1:8787")
	}
	addr := cfg.Gateway.Listen
	if !cfg.ListenIsLoopback() && !cfg.Gated() {
		return fail(CheckListener, "gateway.listen "+addr+" is not loopback and dashboard.public_url is unset: the gateway refuses to start",
			"listen on 127.0.0.1, or set dashboard.public_url (gated mode)")
	}
	for _, a := range []struct{ key, addr string }{{"gateway.listen", addr}, {"metrics.listen", cfg.Metrics.Listen}} {
		if a.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", a.addr)
		if err != nil {
			return fail(CheckListener, fmt.Sprintf("no gateway is running and %s %s cannot be bound: %v", a.key, a.addr, err),
				"stop what listens there, or choose another "+a.key+" (HERMES_LISTEN overrides gateway.listen)")
		}
		_ = ln.Close()
	}
	return pass(CheckListener, "no gateway is running; "+addr+" can be bound")
}

func checkDisk(home string, minFree uint64) Check {
	dir := home
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir) // the filesystem the home will be created on
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fail(CheckDisk, "cannot read the free space of "+dir+": "+err.Error(), "check that "+dir+" is reachable")
	}
	free := st.Bavail * uint64(st.Bsize)
	if free < minFree {
		return fail(CheckDisk, fmt.Sprintf("only %s free on the filesystem of %s (want at least %s)", bytesText(free), dir, bytesText(minFree)),
			"free disk space there: the database, logs and checkpoints grow in the home")
	}
	return pass(CheckDisk, fmt.Sprintf("%s free on the filesystem of %s", bytesText(free), dir))
}

func bytesText(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// checkGit: checkpoints snapshot with git; without it they fail (when
// enabled by default) — with checkpoints off a missing git passes.
func checkGit(ctx context.Context, lookPath func(string) (string, error), needed bool) Check {
	path, err := lookPath("git")
	if err != nil {
		if !needed {
			return pass(CheckGit, "git not found; checkpoints are off, so nothing needs it (session.create checkpoints: true would fail)")
		}
		return fail(CheckGit, "git not found on PATH: checkpoints cannot snapshot",
			"install git (e.g. `apt install git`), or set checkpoints.enabled: false")
	}
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return fail(CheckGit, path+" does not run: "+err.Error(), "reinstall git")
	}
	return pass(CheckGit, strings.TrimSpace(string(out))+" ("+path+")")
}
