package sandbox

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_X86_64
	// x32Bit marks x32 calls, which share AUDIT_ARCH_X86_64 but not its
	// numbering: the filter kills them.
	x32Bit = 0x40000000
)

// deniedArch: port I/O exists only on x86.
var deniedArch = []uint32{unix.SYS_IOPL, unix.SYS_IOPERM}
