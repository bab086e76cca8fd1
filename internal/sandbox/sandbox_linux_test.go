package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStatusOnThisMachine(t *testing.T) {
	t.Parallel()
	st := New(testExe(t), ModeAuto).Status()
	t.Logf("status: %+v", st)
	if st.Level == LevelNone {
		t.Errorf("auto mode reached nothing here: %s", st.Detail)
	}
	if off := New(testExe(t), ModeOff).Status(); off.Level != LevelNone || off.LandlockABI != 0 {
		t.Errorf("off: %+v", off)
	}
}

func TestWritesConfined(t *testing.T) {
	t.Parallel()
	for _, lv := range levels(t) {
		t.Run(lv.name, func(t *testing.T) {
			t.Parallel()
			base := baseDir(t)
			cwd, tmp, outside := filepath.Join(base, "cwd"), filepath.Join(base, "tmp"), filepath.Join(base, "outside.txt")
			mkdir(t, cwd, tmp)
			writeFile(t, outside, "original")
			writeFile(t, filepath.Join(cwd, ".git", "config"), "[core]\n")
			writeFile(t, filepath.Join(cwd, ".git", "HEAD"), "ref: refs/heads/main\n")
			p := Policy{Cwd: cwd, TempDir: tmp}
			out, code := sh(t, lv.l, p, `exec 2>/dev/null
				echo pwned > `+outside+` && echo WROTE-OUTSIDE
				echo new > in-cwd.txt || echo CWD-REFUSED
				echo t > "$TMPDIR/t.txt" || echo TMP-REFUSED
				echo hook > .git/hooks/pre-commit && echo WROTE-HOOK
				echo x >> .git/config && echo WROTE-CONFIG
				echo ok > .git/HEAD || echo HEAD-REFUSED
				echo "tmpdir=$TMPDIR"
				exit 0`)
			bad := strings.Contains(out, "WROTE-OUTSIDE") || strings.Contains(out, "REFUSED")
			if lv.l.Status().Level == LevelFull { // read-only paths hold only where mounts make them
				bad = bad || strings.Contains(out, "WROTE")
			}
			if code != 0 || bad {
				t.Errorf("exit %d, output:\n%s", code, out)
			}
			assertFile(t, outside, "original")
			assertFile(t, filepath.Join(cwd, "in-cwd.txt"), "new\n")
			assertFile(t, filepath.Join(tmp, "t.txt"), "t\n")
			if lv.l.Status().Level != LevelFull {
				return
			}
			assertFile(t, filepath.Join(cwd, ".git", "config"), "[core]\n")
			if _, err := os.Stat(filepath.Join(cwd, ".git", "hooks", "pre-commit")); err == nil {
				t.Error("a hook was written")
			}
		})
	}
}

func TestPrivateTmp(t *testing.T) {
	t.Parallel()
	l := fullLevel(t)
	cwd := filepath.Join(baseDir(t), "cwd")
	mkdir(t, cwd)
	name := fmt.Sprintf("/tmp/hermes-sandbox-leak-%d", os.Getpid())
	out, code := sh(t, l, Policy{Cwd: cwd}, "echo x > "+name+" && cat "+name+" && ls /dev/shm && echo y > /dev/shm/z")
	if code != 0 || out != "x\n" {
		t.Errorf("exit %d, output %q", code, out)
	}
	if _, err := os.Stat(name); err == nil {
		os.Remove(name)
		t.Error("the sandbox's /tmp is the host's")
	}
}

func TestCwdUnderTmp(t *testing.T) {
	t.Parallel()
	l := fullLevel(t)
	cwd := t.TempDir() // under the /tmp that the sandbox replaces
	out, code := sh(t, l, Policy{Cwd: cwd}, "pwd && echo x > f")
	if code != 0 || strings.TrimSpace(out) != cwd {
		t.Errorf("exit %d, output %q", code, out)
	}
	assertFile(t, filepath.Join(cwd, "f"), "x\n")
}

func TestHiddenPaths(t *testing.T) {
	t.Parallel()
	for _, lv := range levels(t) {
		t.Run(lv.name, func(t *testing.T) {
			t.Parallel()
			base := baseDir(t)
			cwd := filepath.Join(base, "home")
			prof, secret := filepath.Join(cwd, ".hermes-profile"), filepath.Join(cwd, ".netrc")
			writeFile(t, filepath.Join(prof, "dashboard.token"), "TOKEN")
			writeFile(t, secret, "machine x password y")
			p := Policy{Cwd: cwd, HiddenPaths: []string{prof, secret, filepath.Join(cwd, "absent")}}
			out, _ := sh(t, lv.l, p, `exec 2>/dev/null
				echo "ls=[$(ls -A .hermes-profile || echo DENIED)]"
				cat .hermes-profile/dashboard.token && echo READ-TOKEN
				echo "netrc=[$(cat .netrc || echo DENIED)]"
				echo x > .hermes-profile/new && echo WROTE-PROFILE
				echo x > .netrc # swallowed by /dev/null at LevelFull
				echo "netrc=[$(cat .netrc || echo DENIED)]"
				mv .hermes-profile moved && echo MOVED
				echo x > other && echo "other=$(cat other)"
				true`)
			// LevelFull covers them with something empty; Landlock refuses
			// to open them instead (names inside stay listable) and freezes
			// their parent, the cwd, against new entries.
			want := "ls=[]\nnetrc=[]\nnetrc=[]\nother=x\n"
			if lv.l.Status().Level == LevelLandlock {
				want = "ls=[dashboard.token]\nnetrc=[DENIED]\nnetrc=[DENIED]\n"
			}
			if out != want {
				t.Errorf("output:\n%s\nwant:\n%s", out, want)
			}
			assertFile(t, filepath.Join(prof, "dashboard.token"), "TOKEN")
			assertFile(t, secret, "machine x password y")
		})
	}
}

func TestProcessState(t *testing.T) {
	t.Parallel()
	for _, lv := range levels(t) {
		t.Run(lv.name, func(t *testing.T) {
			t.Parallel()
			cwd := filepath.Join(baseDir(t), "cwd")
			mkdir(t, cwd)
			out, _ := sh(t, lv.l, Policy{Cwd: cwd}, fmt.Sprintf(
				`grep -E '^(NoNewPrivs|Seccomp|CapEff|CapPrm|CapBnd|CapAmb):' /proc/self/status; test -e /proc/%d && echo DAEMON-VISIBLE; echo pid=$$`, os.Getpid()))
			wants := []string{"NoNewPrivs:\t1", "Seccomp:\t2", "CapEff:\t0000000000000000",
				"CapPrm:\t0000000000000000", "CapAmb:\t0000000000000000"}
			// An ordinary user at LevelLandlock lacks CAP_SETPCAP to empty
			// the bounding set (dropCapabilities); no_new_privs keeps
			// execve from granting any of it.
			if lv.l.Status().Level == LevelFull || os.Getuid() == 0 {
				wants = append(wants, "CapBnd:\t0000000000000000")
			}
			for _, want := range wants {
				if !strings.Contains(out, want+"\n") {
					t.Errorf("no %q in:\n%s", want, out)
				}
			}
			if lv.l.Status().Level == LevelFull && (strings.Contains(out, "DAEMON-VISIBLE") || !strings.Contains(out, "pid=1\n")) {
				t.Errorf("pid namespace: the daemon is visible or the command is not pid 1:\n%s", out)
			}
		})
	}
}

func TestSyscallsRefused(t *testing.T) {
	t.Parallel()
	for _, lv := range levels(t) {
		t.Run(lv.name, func(t *testing.T) {
			t.Parallel()
			cwd := filepath.Join(baseDir(t), "cwd")
			mkdir(t, cwd)
			out, code := run(t, lv.l, Policy{Cwd: cwd}, toolExe, testToolArg, "syscalls")
			want := "ptrace=EPERM process_vm_readv=EPERM unshare=EPERM tiocsti=EPERM clone3=ENOSYS\n"
			if code != 0 || out != want {
				t.Errorf("exit %d, output %q, want %q", code, out, want)
			}
		})
	}
}

func TestNetworkOff(t *testing.T) {
	t.Parallel()
	l := fullLevel(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cwd := filepath.Join(baseDir(t), "cwd")
	mkdir(t, cwd)
	exe := toolExe
	out, _ := run(t, l, Policy{Cwd: cwd}, exe, testToolArg, "ifaces")
	if out != "lo true\n" {
		t.Errorf("interfaces with the network off: %q", out)
	}
	out, _ = run(t, l, Policy{Cwd: cwd}, exe, testToolArg, "dial", ln.Addr().String())
	if !strings.Contains(out, "connection refused") {
		t.Errorf("dial the host's listener with the network off: %q", out)
	}
	out, _ = run(t, l, Policy{Cwd: cwd, Network: true}, exe, testToolArg, "dial", ln.Addr().String())
	if out != "dial: <nil>\n" {
		t.Errorf("dial with the network on: %q", out)
	}
}

// TestKillEndsEverything starts a command that leaves a child in the
// background holding stdout, kills the command and waits for the pipe to
// close: it closes only when the child is gone too.
func TestKillEndsEverything(t *testing.T) {
	t.Parallel()
	for _, lv := range levels(t) {
		t.Run(lv.name, func(t *testing.T) {
			t.Parallel()
			cwd := filepath.Join(baseDir(t), "cwd")
			mkdir(t, cwd)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd, err := lv.l.Command(ctx, Policy{Cwd: cwd}, nil, "/bin/sh", "-c", "sleep 1000 & echo started; wait")
			if err != nil {
				t.Fatal(err)
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cmd.Stdout = w
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			br := bufio.NewReader(r)
			if line, err := br.ReadString('\n'); line != "started\n" {
				t.Fatalf("read %q, %v", line, err)
			}
			if lv.l.Status().Level == LevelFull {
				cmd.Process.Kill() // the pid namespace's init: the kernel ends the rest
			} else {
				cancel() // no pid namespace: Cancel kills the process group
			}
			r.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound on failure, not a wait
			if rest, err := io.ReadAll(br); !errors.Is(err, nil) || len(rest) != 0 {
				t.Errorf("the background child outlived the command: %q, %v", rest, err)
			}
			cmd.Wait()
		})
	}
}

func TestStrictWithoutNamespaces(t *testing.T) {
	t.Parallel()
	h := host{userNSDetail: "disabled by the test", landlockABI: 7}
	l := newLauncher(testExe(t), ModeStrict, h)
	if st := l.Status(); st.Level != LevelNone || !strings.Contains(st.Detail, "disabled by the test") {
		t.Errorf("status %+v", st)
	}
	cmd, err := l.Command(context.Background(), Policy{Cwd: "/"}, nil, "/bin/true")
	if !errors.Is(err, ErrUnavailable) || cmd != nil || !strings.Contains(err.Error(), "disabled by the test") {
		t.Errorf("Command = %v, %v; want nil, ErrUnavailable with the reason", cmd, err)
	}
	if st := newLauncher(testExe(t), ModeAuto, h).Status(); st.Level != LevelLandlock || st.LandlockABI != 7 {
		t.Errorf("auto without namespaces: %+v", st)
	}
	if st := newLauncher(testExe(t), ModeAuto, host{}).Status(); st.Level != LevelNone {
		t.Errorf("auto with nothing: %+v", st)
	}
}

func TestExitStatus(t *testing.T) {
	t.Parallel()
	cases := append(levels(t), testLevel{"off", New(testExe(t), ModeOff)})
	for _, lv := range cases {
		t.Run(lv.name, func(t *testing.T) {
			t.Parallel()
			cwd := filepath.Join(baseDir(t), "cwd")
			mkdir(t, cwd)
			if _, code := sh(t, lv.l, Policy{Cwd: cwd}, "exit 7"); code != 7 {
				t.Errorf("exit 7: got %d", code)
			}
			if lv.name == "off" {
				return
			}
			if out, code := run(t, lv.l, Policy{Cwd: cwd}, "no-such-command-hermes"); code != exitNotFound {
				t.Errorf("missing command: exit %d, %q", code, out)
			}
		})
	}
}

func TestNilEnvIsEmpty(t *testing.T) {
	t.Parallel()
	for _, lv := range append(levels(t), testLevel{"off", New(testExe(t), ModeOff)}) {
		cmd, err := lv.l.Command(context.Background(), Policy{Cwd: "/"}, nil, "/bin/true")
		if err != nil || cmd.Env == nil {
			t.Errorf("%s: Env %v, %v: nil inherits the daemon's environment", lv.name, cmd.Env, err)
		}
	}
}

func TestHelperSetupFailure(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(testExe(t), HelperArg, "{not json", "--", "true")
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != exitSetup || !strings.HasPrefix(string(out), "hermes sandbox: decode policy: ") {
		t.Errorf("exit %d, %q, %v", cmd.ProcessState.ExitCode(), out, err)
	}
	// Outside the namespaces the helper refuses to remount anything.
	js := `{"cwd":"/","level":"` + string(LevelFull) + `"}`
	cmd = exec.Command(testExe(t), HelperArg, js, "--", "true")
	out, _ = cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != exitSetup || !strings.Contains(string(out), "refuse to build the view") {
		t.Errorf("run bare at LevelFull: exit %d, %q", cmd.ProcessState.ExitCode(), out)
	}
}
