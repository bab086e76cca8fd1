package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHomeRule runs with the user's home as the cwd: its top level and
// its dot-directories are read-only, whether the entries exist or not;
// its ordinary directories and a writable root inside a dot-directory stay
// writable; the hidden paths stay hidden.
func TestHomeRule(t *testing.T) {
	t.Parallel()
	for _, lv := range levels(t) {
		t.Run(lv.name, func(t *testing.T) {
			t.Parallel()
			home := filepath.Join(baseDir(t), "home")
			writeFile(t, filepath.Join(home, ".bashrc"), "# original\n")
			writeFile(t, filepath.Join(home, ".ssh", "authorized_keys"), "key\n")
			writeFile(t, filepath.Join(home, ".config", "app.conf"), "conf\n")
			writeFile(t, filepath.Join(home, "notes.txt"), "notes\n")
			mkdir(t, filepath.Join(home, "project"), filepath.Join(home, ".cache", "build"))
			if err := os.Symlink(filepath.Join(home, ".config"), filepath.Join(home, "cfglink")); err != nil {
				t.Fatal(err)
			}
			p := Policy{Cwd: home, Home: home, HiddenPaths: []string{filepath.Join(home, ".ssh")},
				WritableRoots: []string{filepath.Join(home, ".cache", "build")}}
			out, _ := sh(t, lv.l, p, `exec 2>/dev/null
				echo evil >> .bashrc && echo WROTE-BASHRC
				echo evil > .profile && echo CREATED-PROFILE
				mkdir .aws && echo CREATED-AWS
				mkdir -p .gnupg && echo CREATED-GNUPG
				echo evil >> .config/app.conf && echo WROTE-CONFIG
				echo evil >> cfglink/app.conf && echo WROTE-CONFIG-LINK
				echo evil > .config/new && echo CREATED-IN-CONFIG
				mv .config .config-moved && echo MOVED-CONFIG
				mv project project-moved && echo MOVED-PROJECT
				echo evil >> notes.txt && echo WROTE-NOTES
				echo evil >> .ssh/authorized_keys && echo WROTE-KEYS
				mkdir -p project/src && echo ok > project/src/f && echo project-ok
				rm -r project/src && mkdir project/src2 && echo project-rm-ok
				echo ok > .cache/build/f && echo cache-ok
				true`)
			if want := "project-ok\nproject-rm-ok\ncache-ok\n"; out != want {
				t.Errorf("output:\n%s\nwant:\n%s", out, want)
			}
			assertFile(t, filepath.Join(home, ".bashrc"), "# original\n")
			assertFile(t, filepath.Join(home, ".config", "app.conf"), "conf\n")
			assertFile(t, filepath.Join(home, "notes.txt"), "notes\n")
			assertFile(t, filepath.Join(home, ".ssh", "authorized_keys"), "key\n")
			assertFile(t, filepath.Join(home, ".cache", "build", "f"), "ok\n")
			for _, n := range []string{".profile", ".aws", ".gnupg", ".config-moved", "project-moved", ".config/new"} {
				if _, err := os.Lstat(filepath.Join(home, n)); err == nil {
					t.Errorf("~/%s was created", n)
				}
			}
		})
	}
}

// TestHomeRuleOnlyInsideWritableRoots: a cwd inside the home (not
// containing it) is writable throughout, its dot-files too.
func TestHomeRuleOnlyInsideWritableRoots(t *testing.T) {
	t.Parallel()
	for _, lv := range levels(t) {
		t.Run(lv.name, func(t *testing.T) {
			t.Parallel()
			home := filepath.Join(baseDir(t), "home")
			cwd := filepath.Join(home, "project")
			mkdir(t, cwd)
			out, code := sh(t, lv.l, Policy{Cwd: cwd, Home: home}, `echo x > .env && mkdir .cache && echo ok`)
			if code != 0 || out != "ok\n" {
				t.Errorf("exit %d, output %q", code, out)
			}
		})
	}
}

// TestReadOnlyParentPinned: the directory above a read-only path (.git
// above .git/hooks) and above a hidden path two levels inside the cwd
// cannot be renamed away and recreated, and stays writable otherwise.
func TestReadOnlyParentPinned(t *testing.T) {
	t.Parallel()
	l := fullLevel(t)
	cwd := filepath.Join(baseDir(t), "cwd")
	writeFile(t, filepath.Join(cwd, ".git", "hooks", "pre-commit.sample"), "#!/bin/sh\n")
	writeFile(t, filepath.Join(cwd, ".git", "config"), "[core]\n")
	writeFile(t, filepath.Join(cwd, "a", "prof", "config.yaml"), "approvals: manual\n")
	p := Policy{Cwd: cwd, HiddenPaths: []string{filepath.Join(cwd, "a", "prof")}}
	out, _ := sh(t, l, p, `exec 2>/dev/null
		mv .git .git-moved && echo MOVED-GIT
		rm -rf .git; test -d .git/hooks && echo git-stays
		mkdir -p .git/objects && echo ref > .git/HEAD && echo git-writable
		mv a a2 && echo MOVED-A
		echo x > a/f && echo a-writable
		true`)
	if want := "git-stays\ngit-writable\na-writable\n"; out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	assertFile(t, filepath.Join(cwd, ".git", "hooks", "pre-commit.sample"), "#!/bin/sh\n")
	assertFile(t, filepath.Join(cwd, ".git", "config"), "[core]\n")
	assertFile(t, filepath.Join(cwd, "a", "prof", "config.yaml"), "approvals: manual\n")
}

func TestHomeChildDirs(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	mkdir(t, filepath.Join(home, "src"), filepath.Join(home, "work"), filepath.Join(home, ".config"))
	writeFile(t, filepath.Join(home, "notes.txt"), "")
	if err := os.Symlink(filepath.Join(home, ".config"), filepath.Join(home, "cfg")); err != nil {
		t.Fatal(err)
	}
	got := homeChildDirs(home, []string{filepath.Join(home, "work")})
	if diff := cmp.Diff([]string{filepath.Join(home, "src")}, got); diff != "" {
		t.Errorf("homeChildDirs (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		home  string
		roots []string
		want  string
	}{
		{home, []string{home}, home},
		{home, []string{filepath.Dir(home)}, home},
		{home, []string{filepath.Join(home, "src")}, ""},
		{"", []string{home}, ""},
		{"relative", []string{home}, ""},
	} {
		if got := homeUnder(tc.home, tc.roots); got != tc.want {
			t.Errorf("homeUnder(%q, %q) = %q, want %q", tc.home, tc.roots, got, tc.want)
		}
	}
}
