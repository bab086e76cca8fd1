package daemon

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// ExitUsage is the exit code of a home the daemon refuses to use (docs/protocol.md#exit-codes:
// a usage error — the operator gave a directory that is not private).
const ExitUsage = 2

// privateUmask makes every file and directory the daemon creates without an
// explicit mode owner-only (0600/0700); explicit modes say the same.
const privateUmask = 0o077

// guardHome runs first in Run: it sets the private umask and checks the
// profile home before anything reads, creates or chmods it.
//
// The umask is process-wide and inherited by children, so tool processes
// start with 077 too; tools that create user files set their modes
// explicitly.
func guardHome(home string) error {
	unix.Umask(privateUmask)
	if home == "" {
		return nil // prepareHome says what to do
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return nil // prepareHome reports it
	}
	return CheckHome(abs)
}

// CheckHome refuses a profile home that another user could tamper with:
// one owned by another uid, or writable by group or others (which includes
// a sticky shared directory such as /tmp, mode 1777). It changes nothing:
// a home that does not exist yet passes (the daemon creates it 0700). The
// error is an *ExitError (code ExitUsage) whose message says what to fix.
func CheckHome(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return exitf(ExitUsage, "cannot inspect the home %s: %v", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return exitf(ExitUsage, "the home %s is not a directory; pass --home DIR with a directory of your own", dir)
	case !ok:
		return exitf(ExitUsage, "cannot read the owner of the home %s", dir)
	case int(st.Uid) != os.Geteuid():
		return exitf(ExitUsage, "the home %s is owned by uid %d, not you (uid %d); use a home of your own (--home DIR) or `chown %d %s`",
			dir, st.Uid, os.Geteuid(), os.Geteuid(), dir)
	case st.Mode&0o022 != 0:
		return exitf(ExitUsage, "the home %s is writable by group or others (mode %04o); run `chmod 700 %s`",
			dir, st.Mode&0o7777, dir)
	}
	return nil
}
