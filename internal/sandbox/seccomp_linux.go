package sandbox

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The filter refuses, with EPERM, the calls that reach across processes
// (ptrace, process_vm_*, pidfd_getfd, kcmp), into the kernel's big attack
// surfaces (bpf, perf_event_open, userfaultfd, io_uring, keyrings), or
// around the mount view (mount and the new mount API, pivot_root, chroot,
// setns, unshare, namespace flags to clone), plus the administrative ones;
// the terminal-injection ioctls TIOCSTI and TIOCLINUX; and clone3 with
// ENOSYS, because its flags sit in memory a filter cannot read: libc then
// falls back to clone, whose flags it can. A foreign architecture (i386
// or x32 calls on amd64) kills the process: those tables differ, so a
// number on the list would mean something else.
//
// Most of these already fail without capabilities; the filter is the
// layer that does not depend on the capability drop being complete.

// seccomp_data offsets (linux/seccomp.h): nr, arch, then args[6] of 8
// bytes from 16. Both supported architectures are little-endian, so an
// argument's low 32 bits are at its offset; ioctl's request and clone's
// flags are 32-bit (unsigned int, and the namespace bits) in the kernel.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24

	cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
		unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET
)

// bpfProg is a BPF program under construction. Jumps name their targets
// (labels placed later); link resolves them to the 8-bit relative offsets
// BPF wants.
type bpfProg struct {
	ins    []unix.SockFilter
	labels map[string]int
	jumps  []bpfJump
}

type bpfJump struct {
	at     int
	jt, jf string // "" = the next instruction
}

func (p *bpfProg) stmt(code uint16, k uint32) {
	p.ins = append(p.ins, unix.SockFilter{Code: code, K: k})
}

func (p *bpfProg) jump(code uint16, k uint32, jt, jf string) {
	p.jumps = append(p.jumps, bpfJump{len(p.ins), jt, jf})
	p.stmt(code, k)
}

func (p *bpfProg) label(name string) { p.labels[name] = len(p.ins) }

func (p *bpfProg) link() ([]unix.SockFilter, error) {
	for _, j := range p.jumps {
		for _, t := range []struct {
			name string
			dst  *uint8
		}{{j.jt, &p.ins[j.at].Jt}, {j.jf, &p.ins[j.at].Jf}} {
			if t.name == "" {
				continue
			}
			off := p.labels[t.name] - j.at - 1
			if _, ok := p.labels[t.name]; !ok || off < 0 || off > 255 {
				return nil, errors.New("seccomp: bad jump to " + t.name)
			}
			*t.dst = uint8(off)
		}
	}
	return p.ins, nil
}

// installSeccomp installs the filter on this thread only (no TSYNC): the
// command inherits it through execve on this thread. It needs
// no_new_privs, set before.
func installSeccomp() error {
	ins, err := seccompFilter()
	if err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(ins)), Filter: &ins[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0)
}
