//go:build amd64 || arm64

package sandbox

import "golang.org/x/sys/unix"

const (
	bpfLdW  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRet  = unix.BPF_RET | unix.BPF_K
)

// deniedCommon are refused on every architecture; the arch files add
// their own (deniedArch) and name the table (auditArch).
var deniedCommon = []uint32{
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_KCMP, unix.SYS_PIDFD_GETFD,
	unix.SYS_PERF_EVENT_OPEN, unix.SYS_BPF, unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_USERFAULTFD, unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE,
	unix.SYS_FSOPEN, unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR, unix.SYS_SETNS, unix.SYS_UNSHARE,
	unix.SYS_CHROOT, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT, unix.SYS_ACCT,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
}

// seccompFilter assembles the filter described at the top of
// seccomp_linux.go for this architecture.
func seccompFilter() ([]unix.SockFilter, error) {
	p := &bpfProg{labels: map[string]int{}}
	p.stmt(bpfLdW, offArch)
	p.jump(bpfJeq, auditArch, "", "kill")
	p.stmt(bpfLdW, offNr)
	if x32Bit != 0 {
		p.jump(bpfJset, x32Bit, "kill", "")
	}
	for _, nr := range append(deniedCommon, deniedArch...) {
		p.jump(bpfJeq, nr, "deny", "")
	}
	p.jump(bpfJeq, unix.SYS_CLONE3, "enosys", "")
	p.jump(bpfJeq, unix.SYS_IOCTL, "ioctl", "")
	p.jump(bpfJeq, unix.SYS_CLONE, "clone", "")
	p.stmt(bpfRet, unix.SECCOMP_RET_ALLOW)
	p.label("ioctl")
	p.stmt(bpfLdW, offArg1)
	p.jump(bpfJeq, unix.TIOCSTI, "deny", "")
	p.jump(bpfJeq, unix.TIOCLINUX, "deny", "")
	p.stmt(bpfRet, unix.SECCOMP_RET_ALLOW)
	p.label("clone")
	p.stmt(bpfLdW, offArg0)
	p.jump(bpfJset, cloneNamespaces, "deny", "")
	p.stmt(bpfRet, unix.SECCOMP_RET_ALLOW)
	p.label("deny")
	p.stmt(bpfRet, unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM))
	p.label("enosys")
	p.stmt(bpfRet, unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS))
	p.label("kill")
	p.stmt(bpfRet, unix.SECCOMP_RET_KILL_PROCESS)
	return p.link()
}
