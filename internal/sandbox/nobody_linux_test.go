package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobodyEnv carries the scratch directory to the test binary re-run as
// nobody by TestUnprivileged; TestAsNobody runs only there.
const nobodyEnv = "HERMES_SANDBOX_TEST_NOBODY"

// TestUnprivileged proves the path an ordinary user's daemon takes: when
// the suite runs as root, it re-runs TestAsNobody as uid/gid 65534, whose
// user namespace maps 65534 to itself and whose helper holds its
// capabilities only as ambient ones.
func TestUnprivileged(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("the suite already runs unprivileged")
	}
	base := baseDir(t)
	cwd := filepath.Join(base, "cwd")
	mkdir(t, cwd)
	writeFile(t, filepath.Join(base, "outside.txt"), "original")
	for _, p := range []string{base, cwd, filepath.Join(base, "outside.txt")} {
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(toolExe, "-test.run=^TestAsNobody$", "-test.v", "-test.count=1")
	cmd.Env = append(Environ(os.Environ(), nil), nobodyEnv+"="+base)
	cmd.Dir = cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	switch {
	case strings.Contains(string(out), "NOBODY-SKIP"):
		t.Skipf("the kernel refuses an unprivileged sandbox here:\n%s", out)
	case err != nil || !strings.Contains(string(out), "--- PASS: TestAsNobody"):
		t.Errorf("as nobody: %v\n%s", err, out)
	}
	assertFile(t, filepath.Join(base, "outside.txt"), "original")
}

func TestAsNobody(t *testing.T) {
	base := os.Getenv(nobodyEnv)
	if base == "" {
		t.Skip("run by TestUnprivileged")
	}
	if st := New(testExe(t), ModeAuto).Status(); st.Level != LevelFull {
		t.Skipf("NOBODY-SKIP: %+v", st)
	}
	cwd := filepath.Join(base, "cwd")
	for _, lv := range levels(t) {
		out, code := sh(t, lv.l, Policy{Cwd: cwd}, `exec 2>/dev/null
			id -u
			grep -E '^(NoNewPrivs|CapEff):' /proc/self/status
			echo pwned > ../outside.txt && echo WROTE-OUTSIDE
			echo `+lv.name+` > in-cwd.txt && cat in-cwd.txt`)
		want := "65534\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\n" + lv.name + "\n"
		if code != 0 || out != want {
			t.Errorf("%s: exit %d, output:\n%s\nwant:\n%s", lv.name, code, out, want)
		}
	}
}
