package sandbox

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonAsNobody is the end-to-end check of TestUnprivileged: the real
// hermes binary's daemon, run as uid/gid 65534, makes itself non-dumpable
// before it probes the sandbox, and `gateway status --json` must still
// report the full sandbox (the probe starts the helper exactly as every
// tool command is started).
func TestDaemonAsNobody(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to run the daemon as nobody")
	}
	if testing.Short() {
		t.Skip("builds ./cmd/hermes")
	}
	if st := New(testExe(t), ModeStrict).Status(); st.Level != LevelFull {
		t.Skipf("no full sandbox here even as root: %+v", st)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool to build the binary: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	base := baseDir(t) // /var/tmp: the binary and home must be reachable by nobody
	bin, home, cwd := filepath.Join(base, "hermes"), filepath.Join(base, "home"), filepath.Join(base, "cwd")
	build := exec.Command(goTool, "build", "-o", bin, "./cmd/hermes")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/hermes: %v\n%s", err, out)
	}
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	mkdir(t, cwd)
	for _, p := range []string{base, home, cwd} {
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	nobody := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"--home", home}, args...)...)
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + base}
		cmd.Dir = cwd
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534},
			Setpgid: true, Pdeathsig: syscall.SIGKILL}
		return cmd
	}
	var daemonOut bytes.Buffer
	daemon := nobody("gateway", "run")
	daemon.Stdout, daemon.Stderr = &daemonOut, &daemonOut
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { daemon.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-daemon.Process.Pid, syscall.SIGKILL)
		<-exited
	})

	var st struct {
		State string `json:"state"`
		Level Level  `json:"sandbox_level"`
	}
	var out []byte
	for deadline := time.Now().Add(20 * time.Second); st.State != "ready"; time.Sleep(50 * time.Millisecond) {
		select {
		case <-exited:
			t.Fatalf("the daemon exited: %v\n%s", daemon.ProcessState, daemonOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready: %s\ndaemon:\n%s", out, daemonOut.String())
		}
		out, _ = nobody("gateway", "status", "--json").Output()
		st.State = ""
		json.Unmarshal(out, &st)
	}
	if st.Level != LevelFull {
		t.Errorf("sandbox_level %q, want %q; daemon log:\n%s", st.Level, LevelFull, daemonOut.String())
	}
	// The daemon ran as nobody and non-dumpable: its environ is root's.
	var fi syscall.Stat_t
	if err := syscall.Stat("/proc/"+strconv.Itoa(daemon.Process.Pid)+"/environ", &fi); err != nil || fi.Uid != 0 {
		t.Errorf("the daemon's environ: owner %d, %v; want root's (non-dumpable)", fi.Uid, err)
	}
	status, _ := os.ReadFile("/proc/" + strconv.Itoa(daemon.Process.Pid) + "/status")
	if !strings.Contains(string(status), "\nUid:\t65534\t65534\t65534\t65534\n") {
		t.Errorf("the daemon does not run as nobody:\n%s", status)
	}
}
