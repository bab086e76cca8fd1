package control

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// helperConfineEnv makes TestHelperProcess confine itself like a sandboxed
// tool (no_new_privs and an allow-all seccomp filter) before it asks.
const helperConfineEnv = "HERMES_CONTROL_TEST_CONFINE"

func TestSandboxedStatus(t *testing.T) {
	t.Parallel()
	status := func(nnp, seccomp string) string {
		s := "Name:\tbash\nUmask:\t0022\nState:\tS (sleeping)\nPid:\t42\n"
		if nnp != "" {
			s += "NoNewPrivs:\t" + nnp + "\n"
		}
		if seccomp != "" {
			s += "Seccomp:\t" + seccomp + "\nSeccomp_filters:\t1\n"
		}
		return s + "Speculation_Store_Bypass:\tthread vulnerable\n"
	}
	tests := []struct {
		name   string
		status string
		want   bool
	}{
		{"sandboxed", status("1", "2"), true},
		{"plain", status("0", "0"), false},
		{"no_new_privs only (setpriv, systemd NoNewPrivileges)", status("1", "0"), false},
		{"filter without no_new_privs (root with CAP_SYS_ADMIN)", status("0", "2"), false},
		{"strict seccomp", status("1", "1"), false},
		{"old kernel: no fields", status("", ""), false},
		{"spaces instead of a tab", "NoNewPrivs:  1\nSeccomp:   2\n", true},
		{"no trailing newline", "NoNewPrivs:\t1\nSeccomp:\t2", true},
		{"a name that only starts alike", "NoNewPrivsX:\t1\nSeccomp_filters:\t2\nSeccomp:\t0\nNoNewPrivs:\t1\n", false},
		{"empty", "", false},
		{"garbage", "\x00\x01:::\n:\n", false},
	}
	for _, tt := range tests {
		if got := sandboxedStatus(tt.status); got != tt.want {
			t.Errorf("%s: sandboxedStatus = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSandboxedPeerRefused: a child that confined itself like a sandboxed
// tool is refused even without the tool marker and outside any tool tree;
// the same child unconfined gets a ticket.
func TestSandboxedPeerRefused(t *testing.T) {
	t.Parallel()
	_, path := startServer(t, newFakeHandler(), Options{})
	args := []string{"-test.run=^TestHelperProcess$"}
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{helperConfineEnv + "=1"}, "ERR: " + string(errSandboxed)},
		{nil, "OK"},
	} {
		out, err := helperCmd(t, os.Args[0], args, path, c.env...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("env %v: %v\n%s\nwant %q", c.env, err, out, c.want)
		}
	}
}

func TestCheckNotSandboxedFailsClosed(t *testing.T) {
	t.Parallel()
	var r *refusal
	if err := checkNotSandboxed(1 << 30); !errors.As(err, &r) {
		t.Errorf("unreadable status: %v, want a refusal", err)
	}
}

// confineLikeSandbox sets no_new_privs and an allow-all seccomp filter on
// every thread of this process (TSYNC), as the sandbox helper leaves them.
func confineLikeSandbox() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	allow := []unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}
	prog := unix.SockFprog{Len: uint16(len(allow)), Filter: &allow[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	if errno != 0 {
		return errno
	}
	return nil
}
