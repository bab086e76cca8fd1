package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeSystemctl records every command and fails those named in fail.
type fakeSystemctl struct {
	calls []string
	fail  map[string]string // command → output of its failure
}

func (f *fakeSystemctl) run(_ context.Context, name string, args ...string) ([]byte, error) {
	cmd := name + " " + strings.Join(args, " ")
	f.calls = append(f.calls, cmd)
	if out, ok := f.fail[cmd]; ok {
		return []byte(out), errors.New("exit status 1")
	}
	return nil, nil
}

func testOptions(t *testing.T, f *fakeSystemctl) Options {
	t.Helper()
	dir := t.TempDir()
	linger := filepath.Join(dir, "linger")
	if err := os.Mkdir(linger, 0o755); err != nil {
		t.Fatal(err)
	}
	return Options{
		Home: filepath.Join(dir, "my home%"), Executable: "/opt/hermes $1/bin/hermes",
		ConfigHome: filepath.Join(dir, "xdg"), Path: "/usr/bin:/bin", User: "alice",
		LingerDir: linger, Run: f.run,
	}
}

func TestInstallWritesUnitAndEnables(t *testing.T) {
	t.Parallel()
	f := &fakeSystemctl{}
	opts := testOptions(t, f)
	res, err := Install(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	wantPath := filepath.Join(opts.ConfigHome, "systemd", "user", "hermes-gateway.service")
	if res.UnitPath != wantPath || res.Replaced {
		t.Errorf("result %+v, want a new unit at %s", res, wantPath)
	}
	want := []string{"systemctl --user daemon-reload", "systemctl --user enable --now hermes-gateway.service"}
	if diff := cmp.Diff(want, f.calls); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, res.Commands); diff != "" {
		t.Errorf("Result.Commands (-want +got):\n%s", diff)
	}
	b, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	for _, line := range []string{
		`ExecStart="/opt/hermes $$1/bin/hermes" --home "` + strings.ReplaceAll(opts.Home, "%", "%%") + `" gateway run`,
		`Environment="PATH=/usr/bin:/bin"`,
		"Restart=on-failure", "NoNewPrivileges=yes", "WantedBy=default.target", "RestartPreventExitStatus=2 3 5",
	} {
		if !strings.Contains(unit, line+"\n") {
			t.Errorf("unit lacks line %q:\n%s", line, unit)
		}
	}
	for _, bad := range []string{"PrivateUsers", "ProtectSystem", "ProtectHome", "RestrictNamespaces", "PrivateTmp", "MemoryDenyWriteExecute"} {
		if strings.Contains(unit, bad) {
			t.Errorf("unit sets %s, which breaks the tool sandbox:\n%s", bad, unit)
		}
	}
	if fi, _ := os.Stat(wantPath); fi.Mode().Perm() != 0o644 {
		t.Errorf("unit mode %v, want 0644", fi.Mode().Perm())
	}
	if res.Linger || !strings.Contains(res.Hint, "loginctl enable-linger alice") {
		t.Errorf("lingering off: result %+v, want the enable-linger hint", res)
	}
}

func TestInstallLingerOnNoHintAndReplace(t *testing.T) {
	t.Parallel()
	f := &fakeSystemctl{}
	opts := testOptions(t, f)
	if err := os.WriteFile(filepath.Join(opts.LingerDir, "alice"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	res, err := Install(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Replaced || !res.Linger || res.Hint != "" {
		t.Errorf("second install with lingering on: %+v, want replaced, linger, no hint", res)
	}
}

func TestInstallReportsSystemctlFailure(t *testing.T) {
	t.Parallel()
	f := &fakeSystemctl{fail: map[string]string{
		"systemctl --user daemon-reload": "Failed to connect to bus: No medium found",
	}}
	_, err := Install(context.Background(), testOptions(t, f))
	if err == nil || !strings.Contains(err.Error(), "Failed to connect to bus") {
		t.Fatalf("err %v, want systemctl's output", err)
	}
	if len(f.calls) != 1 {
		t.Errorf("commands after a failed reload: %v, want none", f.calls)
	}
}

func TestUninstall(t *testing.T) {
	t.Parallel()
	f := &fakeSystemctl{}
	opts := testOptions(t, f)
	res, err := Uninstall(context.Background(), opts)
	if err != nil || res.Removed || len(f.calls) != 0 {
		t.Fatalf("uninstall without a unit: %+v %v, calls %v; want a no-op", res, err, f.calls)
	}
	if _, err := Install(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	f.calls = nil
	res, err = Uninstall(context.Background(), opts)
	if err != nil || !res.Removed {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	want := []string{"systemctl --user disable --now hermes-gateway.service", "systemctl --user daemon-reload"}
	if diff := cmp.Diff(want, f.calls); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(res.UnitPath); !os.IsNotExist(err) {
		t.Errorf("unit still there: %v", err)
	}
}

func TestXDGConfigHomeDefault(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	f := &fakeSystemctl{}
	opts := testOptions(t, f)
	opts.ConfigHome = ""
	res, err := Install(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(xdg, "systemd", "user", UnitName); res.UnitPath != want {
		t.Errorf("unit at %s, want %s", res.UnitPath, want)
	}
}

func TestRefusesLineBreaks(t *testing.T) {
	t.Parallel()
	opts := testOptions(t, &fakeSystemctl{})
	opts.Home += "\nExecStartPre=/bin/evil"
	if _, err := Install(context.Background(), opts); err == nil {
		t.Fatal("a home with a line break was accepted")
	}
}
