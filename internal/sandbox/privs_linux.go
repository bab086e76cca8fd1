package sandbox

import (
	"golang.org/x/sys/unix"
)

// Securebits (linux/securebits.h; x/sys lacks them). With NOROOT locked,
// uid 0 inside (a root daemon maps to uid 0) gains no capability at
// execve; with NO_CAP_AMBIENT_RAISE locked, none comes back as ambient.
const (
	secbitNoRoot                  = 1 << 0
	secbitNoRootLocked            = 1 << 1
	secbitNoSetuidFixup           = 1 << 2
	secbitNoSetuidFixupLocked     = 1 << 3
	secbitKeepCapsLocked          = 1 << 5
	secbitNoCapAmbientRaise       = 1 << 6
	secbitNoCapAmbientRaiseLocked = 1 << 7
	lockedSecurebits              = secbitNoRoot | secbitNoRootLocked | secbitNoSetuidFixup |
		secbitNoSetuidFixupLocked | secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLocked
)

func setNoNewPrivs() error {
	return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
}

// dropCapabilities leaves this thread, and so the command, without any
// capability: ambient cleared, bounding set emptied, securebits locked
// (both need CAP_SETPCAP, which the helper holds in its user namespace;
// without it, as at LevelLandlock for an ordinary user, there is nothing to
// drop there and no_new_privs keeps execve from adding any), and the
// permitted, effective and inheritable sets zeroed last.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	if data[unix.CAP_SETPCAP/32].Effective&(1<<(unix.CAP_SETPCAP%32)) != 0 {
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, lockedSecurebits, 0, 0, 0); err != nil {
			return err
		}
		for c := 0; c < 64; c++ { // past the last cap the kernel knows: EINVAL
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
				return err
			}
		}
	}
	data = [2]unix.CapUserData{}
	return unix.Capset(&hdr, &data[0])
}
