package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// testToolArg makes the test binary a tool to run inside the sandbox: it
// makes the calls a shell cannot and prints what the kernel answered.
const testToolArg = "sandbox-test-tool"

func TestMain(m *testing.M) {
	MaybeHelper()
	if len(os.Args) > 2 && os.Args[1] == testToolArg {
		os.Exit(testTool(os.Args[2], os.Args[3:]))
	}
	if os.Getenv(nonDumpableEnv) != "" { // as the daemon is: see TestUnprivileged
		if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
			fmt.Fprintln(os.Stderr, "PR_SET_DUMPABLE:", err)
			os.Exit(1)
		}
	}
	os.Exit(runTests(m))
}

// toolExe is a copy of the test binary outside /tmp (the go tool builds
// it under /tmp, which is the sandbox's own at LevelFull) in a directory
// every user can read, for running it inside the sandbox and as nobody.
var toolExe string

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("/var/tmp", "hermes-sandbox-exe-")
	if err == nil {
		defer os.RemoveAll(dir)
		err = copyExe(filepath.Join(dir, "sandbox.test"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "copy the test binary:", err)
		return 1
	}
	toolExe = filepath.Join(dir, "sandbox.test")
	return m.Run()
}

func copyExe(dst string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		return err
	}
	if err := os.Chmod(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}

func testTool(verb string, args []string) int {
	switch verb {
	case "syscalls":
		fmt.Println(syscallReport())
	case "dial":
		c, err := net.Dial("tcp", args[0])
		if err == nil {
			c.Close()
		}
		fmt.Println("dial:", err)
	case "ifaces":
		ifs, _ := net.Interfaces()
		for _, i := range ifs {
			fmt.Println(i.Name, i.Flags&net.FlagUp != 0)
		}
	default:
		return 2
	}
	return 0
}

// syscallReport makes calls that succeed (or fail otherwise than EPERM)
// outside the filter, so that EPERM proves the filter.
func syscallReport() string {
	var r []string
	errName := func(e syscall.Errno) string {
		if e == 0 {
			return "ok"
		}
		return unix.ErrnoName(e)
	}
	_, _, e := unix.RawSyscall(unix.SYS_PTRACE, unix.PTRACE_TRACEME, 0, 0)
	r = append(r, "ptrace="+errName(e))
	buf, dst := []byte("x"), make([]byte, 1)
	local := unix.Iovec{Base: &dst[0], Len: 1}
	remote := unix.RemoteIovec{Base: uintptr(unsafe.Pointer(&buf[0])), Len: 1}
	_, err := unix.ProcessVMReadv(os.Getpid(), []unix.Iovec{local}, []unix.RemoteIovec{remote}, 0)
	r = append(r, "process_vm_readv="+errName(errnoOf(err)))
	r = append(r, "unshare="+errName(errnoOf(unix.Unshare(unix.CLONE_NEWUSER))))
	_, _, e = unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&buf[0])))
	r = append(r, "tiocsti="+errName(e))
	_, _, e = unix.RawSyscall(unix.SYS_CLONE3, 0, 0, 0)
	r = append(r, "clone3="+errName(e))
	return strings.Join(r, " ")
}

func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return 0
}

// testExe is this test binary, which serves HelperArg through TestMain.
func testExe(t testing.TB) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// testLevel is one sandbox level this machine can build, by name.
type testLevel struct {
	name string
	l    *Launcher
}

// levels returns a Launcher for every level the machine allows: LevelFull
// when the probe finds user namespaces, and LevelLandlock (the auto
// fallback, built from the same probe with the namespaces struck out)
// when it finds Landlock.
func levels(t testing.TB) []testLevel {
	exe := testExe(t)
	h := probeCached(exe)
	var out []testLevel
	if h.userNS {
		out = append(out, testLevel{"full", newLauncher(exe, ModeStrict, h)})
	} else {
		t.Logf("no LevelFull here: %s", h.userNSDetail)
	}
	if h.landlockABI > 0 {
		noNS := h
		noNS.userNS, noNS.userNSDetail = false, "struck out by the test"
		out = append(out, testLevel{"landlock", newLauncher(exe, ModeAuto, noNS)})
	}
	if len(out) == 0 {
		t.Skipf("neither user namespaces (%s) nor Landlock (%s) here", h.userNSDetail, h.abiDetail)
	}
	return out
}

// fullLevel returns the LevelFull launcher or skips, saying why.
func fullLevel(t testing.TB) *Launcher {
	exe := testExe(t)
	h := probeCached(exe)
	if !h.userNS {
		t.Skipf("user namespaces unavailable: %s", h.userNSDetail)
	}
	return newLauncher(exe, ModeStrict, h)
}

// baseDir is a scratch directory outside /tmp: at LevelFull /tmp is the
// sandbox's own, so a path under the host's /tmp says nothing about
// writes outside the writable roots.
func baseDir(t testing.TB) string {
	d, err := os.MkdirTemp("/var/tmp", "hermes-sandbox-test-")
	if err != nil {
		t.Skipf("need /var/tmp for a directory outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func mkdir(t testing.TB, dirs ...string) {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t testing.TB, path, content string) {
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func assertFile(t testing.TB, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != want {
		t.Errorf("%s = %q, %v; want %q", path, b, err, want)
	}
}

// run runs script under sh in l with p and returns its combined output
// and exit status.
func run(t testing.TB, l *Launcher, p Policy, argv ...string) (string, int) {
	t.Helper()
	cmd, err := l.Command(context.Background(), p, Environ(os.Environ(), nil), argv...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run %v: %v", argv, err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

func sh(t testing.TB, l *Launcher, p Policy, script string) (string, int) {
	t.Helper()
	return run(t, l, p, "/bin/sh", "-c", script)
}
