package daemon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// homeLock is the exclusive flock on gateway.lock, held for the process
// lifetime: a second daemon on the same home refuses to start (exit 3).
type homeLock struct{ f *os.File }

func acquireLock(home string) (*homeLock, error) {
	path := filepath.Join(home, "gateway.lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, exitf(ExitRuntime, "cannot open %s: %v", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, exitf(ExitUnavailable, "another gateway already owns %s%s; stop it with `hermes gateway stop --home %s`",
				home, holder(f), home)
		}
		return nil, exitf(ExitRuntime, "cannot lock %s: %v", path, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	_ = f.Sync()
	return &homeLock{f: f}, nil
}

func holder(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	if pid := strings.TrimSpace(string(b[:n])); pid != "" {
		return fmt.Sprintf(" (pid %s)", pid)
	}
	return ""
}

func (l *homeLock) release() {
	_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	_ = l.f.Close()
}
