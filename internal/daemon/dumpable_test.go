package daemon

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nobody is the uid the test runs the daemon as when it runs as root: root
// reads every /proc file (CAP_SYS_PTRACE), so the claim "no same-uid
// process can read it" is only testable between two unprivileged
// processes of one uid.
const nobody = 65534

// TestDaemonNotDumpable starts the real binary and reads its
// /proc/<pid>/environ from another process of the daemon's uid (the
// attacker: a tool that left its sandbox). The read fails, and the file is
// owned by root, which is what PR_SET_DUMPABLE 0 does; the same reader
// reads the environ of an ordinary process of that uid (a control: the
// refusal is the daemon's, not the reader's).
func TestDaemonNotDumpable(t *testing.T) {
	t.Parallel()
	uid := os.Getuid()
	if uid == 0 {
		uid = nobody
	}
	dir := sharedTempDir(t, uid)
	bin := buildHermes(t, dir)
	const canary = "DUMPABLE_TEST_CANARY=sk-in-the-daemon-environment"
	daemon := startAs(t, uid, exec.Command(bin, "--home", filepath.Join(dir, "home"), "gateway", "run"), dir, canary)
	awaitFile(t, filepath.Join(dir, "out"), "gateway ready", daemon)
	control := startAs(t, uid, exec.Command("sleep", "60"), dir, canary)

	environ := "/proc/" + strconv.Itoa(daemon.Process.Pid) + "/environ"
	if owner, err := ownerUID(environ); err != nil || owner != 0 {
		t.Errorf("%s: owner uid %d (%v), want root: the daemon runs as uid %d and is not dumpable", environ, owner, err, uid)
	}
	if out, err := readAs(uid, environ); err == nil || strings.Contains(out, "sk-in-the-daemon") {
		t.Errorf("uid %d read the daemon's environment (err %v):\n%s", uid, err, out)
	}
	if out, err := readAs(uid, "/proc/"+strconv.Itoa(control.Process.Pid)+"/environ"); err != nil || !strings.Contains(out, "sk-in-the-daemon") {
		t.Fatalf("control: uid %d cannot read a dumpable process of its own (err %v): the test proves nothing", uid, err)
	}
}

// sharedTempDir is a short temp dir (the socket path must fit in 108
// bytes) that uid can traverse, holding a home and a HOME owned by uid.
func sharedTempDir(t *testing.T, uid int) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hgd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"home", "user"} {
		p := filepath.Join(dir, sub)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil && os.Getuid() == 0 {
			t.Fatal(err)
		}
	}
	return dir
}

func buildHermes(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "hermes")
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = "/usr/local/go/bin/go"
	}
	if out, err := exec.Command(gobin, "build", "-o", bin, "github.com/hermes-gateway/hermes/cmd/hermes").CombinedOutput(); err != nil {
		t.Fatalf("build hermes: %v\n%s", err, out)
	}
	if err := os.Chmod(bin, 0o755); err != nil { // in-process daemons set umask 077
		t.Fatal(err)
	}
	return bin
}

// startAs starts cmd as uid (when the test is root) with a clean
// environment plus extra, its output appended to dir/out, and kills it in
// Cleanup.
func startAs(t *testing.T, uid int, cmd *exec.Cmd, dir string, extra ...string) *exec.Cmd {
	t.Helper()
	out, err := os.OpenFile(filepath.Join(dir, "out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(dir, "user"), "HERMES_LISTEN=127.0.0.1:0"}, extra...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = credential(uid)
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pdeathsig = true, syscall.SIGKILL
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

func ownerUID(path string) (int, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return -1, err
	}
	return int(fi.Sys().(*syscall.Stat_t).Uid), nil
}

func credential(uid int) *syscall.SysProcAttr {
	if os.Getuid() != 0 {
		return &syscall.SysProcAttr{}
	}
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
}

// readAs reads path with cat running as uid.
func readAs(uid int, path string) (string, error) {
	cmd := exec.Command("cat", path)
	cmd.SysProcAttr = credential(uid)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// awaitFile waits until path holds want, failing early if cmd exits.
func awaitFile(t *testing.T, path, want string, cmd *exec.Cmd) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		b, _ := os.ReadFile(path)
		switch {
		case strings.Contains(string(b), want):
			return
		case time.Now().After(deadline):
			t.Fatalf("no %q in %s within 30s:\n%s", want, path, b)
		case cmd.ProcessState != nil || syscall.Kill(cmd.Process.Pid, 0) != nil:
			t.Fatalf("process exited before %q:\n%s", want, b)
		}
		<-tick.C
	}
}
