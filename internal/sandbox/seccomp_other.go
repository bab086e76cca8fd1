//go:build linux && !amd64 && !arm64

package sandbox

import (
	"errors"
	"runtime"

	"golang.org/x/sys/unix"
)

// Only amd64 and arm64 have syscall tables here. Elsewhere the helper
// fails at the seccomp step: the probe reports it (no LevelFull), and at
// LevelLandlock every command fails with 125 rather than run unfiltered.
func seccompFilter() ([]unix.SockFilter, error) {
	return nil, errors.New("no seccomp filter for " + runtime.GOARCH)
}
