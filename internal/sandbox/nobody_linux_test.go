package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// nobodyEnv carries the scratch directory to the test binary re-run as
// nobody by TestUnprivileged; TestAsNobody runs only there.
const nobodyEnv = "HERMES_SANDBOX_TEST_NOBODY"

// nonDumpableEnv makes TestMain call PR_SET_DUMPABLE 0 before the tests
// run, as daemon.Run does before it makes its Launchers: the helper is then
// forked from a non-dumpable process, whose /proc/<pid> files (uid_map
// among them) belong to root until its execve. Set by TestUnprivileged;
// set it by hand to run the benchmark so.
const nonDumpableEnv = "HERMES_SANDBOX_TEST_NONDUMPABLE"

// TestUnprivileged proves the path an ordinary user's daemon takes: when
// the suite runs as root, it re-runs the whole suite as uid/gid 65534,
// whose user namespace maps 65534 to itself and whose helper holds its
// capabilities only as ambient ones, once as a dumpable process and once
// non-dumpable, like the daemon. Non-dumpable, the helper's /proc files
// are root's until its execve, so a uid map written by the parent before
// it (what SysProcAttr.UidMappings does) is refused: the helper maps
// itself after its execve instead.
func TestUnprivileged(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("the suite already runs unprivileged")
	}
	kernelRefuses := false
	for _, nonDumpable := range []bool{false, true} {
		name := map[bool]string{false: "dumpable", true: "non-dumpable"}[nonDumpable]
		t.Run(name, func(t *testing.T) {
			if kernelRefuses {
				t.Skip("the kernel refuses an unprivileged sandbox here")
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
			cmd := exec.Command(toolExe, "-test.v", "-test.count=1")
			cmd.Env = append(Environ(os.Environ(), nil), nobodyEnv+"="+base)
			if nonDumpable {
				cmd.Env = append(cmd.Env, nonDumpableEnv+"=1")
			}
			cmd.Dir = cwd
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			out, err := cmd.CombinedOutput()
			switch {
			case strings.Contains(string(out), "NOBODY-SKIP"):
				kernelRefuses = true
				t.Skipf("the kernel refuses an unprivileged sandbox here:\n%s", out)
			case err != nil || !strings.Contains(string(out), "--- PASS: TestAsNobody"):
				t.Errorf("as nobody: %v\n%s", err, out)
			}
			// The tests that matter most ran at LevelFull, not skipped to
			// the fallback.
			for _, want := range []string{"--- PASS: TestKillEndsEverything/full", "--- PASS: TestWritesConfined/full",
				"--- PASS: TestKillEndsEverything/landlock", "--- PASS: TestHiddenPaths/landlock"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("as nobody: no %q in the output", want)
				}
			}
			assertFile(t, filepath.Join(base, "outside.txt"), "original")
		})
	}
}

func TestAsNobody(t *testing.T) {
	base := os.Getenv(nobodyEnv)
	if base == "" {
		t.Skip("run by TestUnprivileged")
	}
	nonDumpable := os.Getenv(nonDumpableEnv) != ""
	if d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err != nil || (d == 0) != nonDumpable {
		t.Fatalf("PR_GET_DUMPABLE = %d, %v; want non-dumpable %t", d, err, nonDumpable)
	}
	st := New(testExe(t), ModeStrict).Status()
	switch {
	case st.Level != LevelFull && nonDumpable: // the dumpable run reached it: so must this one
		t.Fatalf("non-dumpable: %+v", st)
	case st.Level != LevelFull:
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
