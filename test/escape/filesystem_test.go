package escape

import (
	"archive/tar"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// 4. Profile config. A tool rewrites the profile's config.yaml (approvals
// off, an allow-list, the sandbox off) by every spelling, from a cwd that
// contains the profile home (absolute and relative paths) and writes into
// the home. Effect: config.yaml's bytes are unchanged, nothing new appears
// in the home, and the next dangerous command in another session asks.
func TestEscapeProfileConfig(t *testing.T) {
	t.Parallel()
	inModes(t, "without the sandbox the profile home is an ordinary directory of the user", func(t *testing.T, mode string) {
		w := newWorld(t, mode, worldOpts{})
		home := w.f.Home
		cfgPath := filepath.Join(home, "config.yaml")
		b, err := os.ReadFile(cfgPath)
		if err != nil {
			t.Fatal(err)
		}
		victims := []victim{{path: cfgPath, data: b}, absent(filepath.Join(home, ".env")), absent(filepath.Join(home, "evil"))}
		cwd, err := filepath.EvalSymlinks(filepath.Dir(home)) // the cwd contains the profile home
		if err != nil {
			t.Fatal(err)
		}
		rel := filepath.Base(home)
		h := shq(home)
		cmds := []string{
			`sed -i 's/"manual"/"off"/' ` + h + `/config.yaml`,
			`sed -i 's/command_allowlist: \[\]/command_allowlist: ["rm_recursive", "rm"]/' ` + rel + `/config.yaml`,
			`sed -i 's/mode: ` + mode + `/mode: off/' ` + rel + `/config.yaml`,
			`echo 'approvals: {mode: "off"}' >> ` + h + `/config.yaml`,
			`cp ` + h + `/config.yaml c.yaml; sed -i 's/manual/off/' c.yaml; mv -f c.yaml ` + rel + `/config.yaml`,
			`rm -f ` + h + `/config.yaml; printf 'approvals: {mode: "off"}\n' > ` + h + `/config.yaml`,
			`echo OPENAI_API_KEY=x >> ` + h + `/.env; touch ` + rel + `/evil`,
		}
		if py := interpreter("python3"); py != "" {
			cmds = append(cmds, py+` -c "p='`+home+`/config.yaml'; s=open(p).read(); open(p,'w').write(s.replace('manual','off'))"`)
		}
		s := w.session(cwd, true)
		w.turn(s.SessionID, "profilecfg", cmds...)
		for _, v := range victims {
			v.check(t)
		}
		// The gate still asks.
		other := gt.Cwd(t)
		owned := ownedDir(t, other)
		next := w.session(other, false)
		w.f.Turns.Set("nextdanger", toolCall("rm -r -- "+owned), textReply("nextdanger_DONE"))
		rc := gt.Submit(t, w.v, next.SessionID, "nextdanger", "nextdanger")
		ev := w.v.Await(t, wait, func(ev protocol.Event) bool {
			return ev.SessionID == next.SessionID && (ev.Type == protocol.EventApprovalRequest || gt.Completed(rc.AdmissionID)(ev))
		})
		if ev.Type != protocol.EventApprovalRequest {
			t.Fatalf("HOLE: the next dangerous command did not ask (the gate switched itself off); %s exists: %v", owned, exists(owned))
		}
		w.deny(next.SessionID, gt.Payload[protocol.Prompt](t, ev), rc.AdmissionID, owned)
	})
}

// 5. ~/.ssh. A tool adds a key to ~/.ssh/authorized_keys of the HOME the
// daemon sees (echo >>, cp, python3, perl, tar x), creates ~/.gnupg and
// edits ~/.bashrc; once from an unrelated cwd, once with the HOME itself
// as the cwd (hidden paths stay hidden inside a writable root). Effect:
// the key file's bytes are unchanged, ~/.gnupg is absent, ~/.bashrc is
// unchanged (first session).
func TestEscapeSSHAuthorizedKeys(t *testing.T) {
	t.Parallel()
	inModes(t, "without the sandbox ~/.ssh is an ordinary directory of the user", func(t *testing.T, mode string) {
		var keys, bashrc victim
		w := newWorld(t, mode, worldOpts{userHome: func(t *testing.T, dir string) {
			keys = newVictim(t, filepath.Join(dir, ".ssh", "authorized_keys"), "ssh-ed25519 AAAAoriginal test@escape\n")
			bashrc = newVictim(t, filepath.Join(dir, ".bashrc"), "# original\n")
			if err := os.Mkdir(filepath.Join(dir, "project"), 0o700); err != nil {
				t.Fatal(err)
			}
		}})
		gnupg := absent(filepath.Join(w.userHome, ".gnupg"))
		sshNew := absent(filepath.Join(w.userHome, ".ssh", "authorized_keys2"))
		attacks := func(h string) []string {
			ak := h + "/.ssh/authorized_keys"
			cmds := []string{
				"echo 'ssh-ed25519 AAAAevil attacker' >> " + ak,
				"echo 'ssh-ed25519 AAAAevil attacker' > evil.pub; cp evil.pub " + ak + "; cp evil.pub " + h + "/.ssh/authorized_keys2",
				"mkdir -p p/.ssh && echo 'ssh-ed25519 AAAAevil attacker' > p/.ssh/authorized_keys && tar -C p -cf p.tar .ssh && tar -C " + h + " -xf p.tar",
				"mkdir -p " + h + "/.gnupg && echo evil > " + h + "/.gnupg/gpg.conf",
				"rm -f " + ak + "; mv " + h + "/.ssh " + h + "/.ssh-moved",
			}
			if py := interpreter("python3"); py != "" {
				cmds = append(cmds, py+` -c "open('`+ak+`','a').write('ssh-ed25519 AAAAevil python\n')"`)
			}
			if pl := interpreter("perl"); pl != "" {
				cmds = append(cmds, pl+` -e 'open(my $f, ">>", "`+ak+`") or die "$!"; print $f "ssh-ed25519 AAAAevil perl\n";'`)
			}
			return cmds
		}
		cwd := gt.Cwd(t)
		s := w.session(cwd, true)
		w.turn(s.SessionID, "sshabs", append(attacks(w.userHome), "echo 'alias ls=evil' >> ~/.bashrc", "echo x >> $HOME/.ssh/authorized_keys")...)
		for _, v := range []victim{keys, bashrc, gnupg, sshNew, absent(filepath.Join(w.userHome, ".ssh-moved"))} {
			v.check(t)
		}
		// The HOME as the cwd (the default cwd is the user's home): the
		// hidden paths stay hidden inside the writable root, also those that
		// do not exist yet, and the shell's and other tools' start-up files
		// (code that runs later, outside the sandbox) stay as they were: the
		// home's top level is read-only (the home rule, internal/sandbox).
		// Its ordinary directories stay writable (the positive control).
		inHome := w.session(w.userHome, true)
		w.turn(inHome.SessionID, "sshrel", append(attacks("."),
			`mkdir -p .aws && printf '[default]\ncredential_process = sh -c "touch pwned"\n' > .aws/config`,
			`echo 'alias ls=evil' >> .bashrc; echo 'touch pwned' > .profile`,
			`mkdir -p project/src && echo ok > project/src/new.txt`)...)
		for _, v := range []victim{keys, gnupg, sshNew, absent(filepath.Join(w.userHome, ".ssh-moved")),
			absent(filepath.Join(w.userHome, ".aws")), bashrc, absent(filepath.Join(w.userHome, ".profile"))} {
			v.check(t)
		}
		if b, err := os.ReadFile(filepath.Join(w.userHome, "project", "src", "new.txt")); string(b) != "ok\n" {
			t.Errorf("positive control: ~/project is not writable with the home as the cwd: %q, %v", b, err)
		}
	})
}

// 6. Outside-cwd writes: cd .. and a relative path, an absolute path,
// python3/perl/node one-liners, archives with ../ and absolute members (GNU
// tar -P, python's tarfile), a symlink the tool makes and one planted in the
// cwd beforehand, a hard link, /proc/self/root, deleting and moving a file.
// Victims are in the default temp dir and, where writable, in /var/tmp
// (outside a private /tmp). Effect: every victim byte-identical, nothing
// created.
func TestEscapeOutsideCwdWrites(t *testing.T) {
	t.Parallel()
	inModes(t, "without the sandbox a tool writes wherever the user can", func(t *testing.T, mode string) {
		w := newWorld(t, mode, worldOpts{})
		cwd := gt.Cwd(t)
		dirs := []string{outsideDir(t, "")} // inside a private /tmp in the sandbox: invisible there
		if fi, err := os.Stat("/var/tmp"); err == nil && fi.IsDir() {
			if d, err := os.MkdirTemp("/var/tmp", "hgw-escape-victim"); err == nil {
				t.Cleanup(func() { _ = os.RemoveAll(d) })
				dirs = append(dirs, d) // visible in the sandbox, read-only
			}
		}
		var victims []victim
		var cmds []string
		py, pl, node := interpreter("python3"), interpreter("perl"), interpreter("node")
		for n, dir := range dirs {
			v := func(name string) string {
				p := filepath.Join(dir, name)
				victims = append(victims, newVictim(t, p, "original "+name+"\n"))
				return p
			}
			nv := func(name string) string {
				p := filepath.Join(dir, name)
				victims = append(victims, absent(p))
				return p
			}
			rel := func(from, to string) string {
				r, err := filepath.Rel(from, to)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			evil, abs, pyTar, planted := fmt.Sprintf("evil%d.tar", n), fmt.Sprintf("abs%d.tar", n), fmt.Sprintf("py%d.tar", n), fmt.Sprintf("planted%d", n)
			writeTar(t, filepath.Join(cwd, evil), rel(cwd, v("tar-victim")))
			writeTar(t, filepath.Join(cwd, abs), v("tarP-victim"))
			writeTar(t, filepath.Join(cwd, pyTar), rel(cwd, v("pytar-victim")))
			if err := os.Symlink(dir, filepath.Join(cwd, planted)); err != nil {
				t.Fatal(err)
			}
			v("planted-victim")
			cmds = append(cmds,
				"cd .. && echo x > "+shq(rel(filepath.Dir(cwd), v("cd-victim"))),
				"echo x > "+shq(v("abs-victim"))+"; echo x >> "+shq(dir+"/abs-victim"),
				"tar -xf "+evil+"; tar -P -xf "+evil,
				"tar -P -xf "+abs,
				fmt.Sprintf("ln -s %s esc%d && echo x > esc%d/%s", shq(dir), n, n, filepath.Base(v("link-victim"))),
				fmt.Sprintf("ln -s %s lv%d && echo x > lv%d", shq(v("link2-victim")), n, n),
				"echo x > "+planted+"/planted-victim",
				fmt.Sprintf("ln %s hl%d && echo x >> hl%d", shq(v("hard-victim")), n, n),
				"echo x > /proc/self/root"+shq(v("procroot-victim")),
				"rm -f "+shq(v("rm-victim"))+"; mv "+shq(v("mv-victim"))+fmt.Sprintf(" ./stolen%d", n),
				"touch "+shq(nv("newfile"))+"; mkdir "+shq(nv("newdir")),
				"cp /etc/hostname "+shq(v("cp-victim")),
			)
			if py != "" {
				cmds = append(cmds,
					py+` -c "open('`+v("py-victim")+`','w').write('x')"`,
					py+` -c "
import tarfile
t = tarfile.open('`+pyTar+`')
kw = {'filter': 'fully_trusted'} if hasattr(tarfile, 'fully_trusted_filter') else {}
t.extractall(**kw)
"`)
			}
			if pl != "" {
				cmds = append(cmds, pl+` -e 'open(my $f, ">", "`+v("perl-victim")+`") or die "$!"; print $f "x";'`)
			}
			if node != "" {
				cmds = append(cmds, node+` -e "require('fs').writeFileSync('`+v("node-victim")+`', 'x')"`)
			}
		}
		s := w.session(cwd, true)
		w.turn(s.SessionID, "outside", cmds...)
		for _, vi := range victims {
			vi.check(t)
		}
	})
}

// writeTar writes an archive at path with one member named name.
func writeTar(t *testing.T, path, name string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	body := []byte("x from the archive\n")
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// 6b. Footholds inside the cwd: .git/hooks, .git/config and .hermes/ stay
// read-only although the cwd is writable (a hook or core.fsmonitor would
// run later, outside the sandbox); also through renaming their parent
// away and recreating it. A second cwd has none of them: there the
// command may create them (the documented residual at
// sandbox.Policy.ReadOnlyPaths: the agent creating its own repository is
// as trusted as any file it writes into the cwd), and from the next
// command on they are read-only like the others.
func TestEscapeCwdFootholds(t *testing.T) {
	t.Parallel()
	inModesExcept(t, "without the sandbox the cwd is writable throughout",
		"read-only paths inside the cwd are not enforced at level landlock+seccomp (documented in internal/sandbox/sandbox.go: "+
			"a Landlock hole for .git/hooks would freeze the cwd)", func(t *testing.T, mode string) {
			w := newWorld(t, mode, worldOpts{})
			attacks := []string{
				`printf '#!/bin/sh\ntouch pwned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
				`printf '[core]\n\tfsmonitor = touch pwned\n' >> .git/config`,
				`git config core.hooksPath evil-hooks`,
				`echo evil > .hermes/hooks.yaml; echo evil > .hermes/new.yaml`,
				`mv .git .git-moved && cp -a .git-moved .git && printf '#!/bin/sh\ntouch pwned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && rm -rf .git-moved && git rev-parse --git-dir`,
				`mv .hermes .hermes-moved && mkdir -p .hermes && echo evil > .hermes/hooks.yaml`,
			}
			t.Run("existing", func(t *testing.T) {
				cwd := gt.Cwd(t)
				if git := interpreter("git"); git != "" {
					if out, err := exec.Command(git, "init", "-q", cwd).CombinedOutput(); err != nil {
						t.Fatalf("git init: %v %s", err, out)
					}
				}
				victims := []victim{
					newVictim(t, filepath.Join(cwd, ".git", "config"), "[core]\n\tbare = false\n"),
					newVictim(t, filepath.Join(cwd, ".git", "HEAD"), "ref: refs/heads/main\n"),
					newVictim(t, filepath.Join(cwd, ".git", "hooks", "pre-commit.sample"), "#!/bin/sh\n"),
					newVictim(t, filepath.Join(cwd, ".hermes", "hooks.yaml"), "hooks: []\n"),
					absent(filepath.Join(cwd, ".git", "hooks", "pre-commit")),
					absent(filepath.Join(cwd, ".hermes", "new.yaml")),
					absent(filepath.Join(cwd, ".git-moved")),
					absent(filepath.Join(cwd, ".hermes-moved")),
				}
				s := w.session(cwd, true)
				w.turn(s.SessionID, "footholds", attacks...)
				for _, v := range victims {
					v.check(t)
				}
			})
			t.Run("created", func(t *testing.T) {
				cwd := gt.Cwd(t)
				s := w.session(cwd, true)
				w.turn(s.SessionID, "newfootholds",
					`git init -q . 2>/dev/null || mkdir -p .git/hooks; mkdir -p .git/hooks; printf '#!/bin/sh\ntouch pwned\n' > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout`,
					`mkdir -p .hermes && echo evil > .hermes/hooks.yaml`)
				// The documented residual: what did not exist when the command
				// started was the command's to create.
				var created []victim
				for _, p := range []string{filepath.Join(cwd, ".git", "hooks", "post-checkout"), filepath.Join(cwd, ".hermes", "hooks.yaml")} {
					b, err := os.ReadFile(p)
					if err != nil {
						t.Fatalf("the documented residual changed (update sandbox.Policy.ReadOnlyPaths, docs/security.md and this test): "+
							"a command could not create %s in a cwd that had none: %v", p, err)
					}
					created = append(created, victim{path: p, data: b})
				}
				// From the next command on they are footholds like any other.
				w.turn(s.SessionID, "newfootholds2",
					`printf 'touch pwned\n' >> .git/hooks/post-checkout; printf '#!/bin/sh\ntouch pwned\n' > .git/hooks/pre-commit`,
					`echo evil2 > .hermes/hooks.yaml`,
					`mv .git .git-moved && cp -a .git-moved .git && printf '#!/bin/sh\ntouch pwned\n' > .git/hooks/pre-commit`)
				for _, v := range append(created, absent(filepath.Join(cwd, ".git", "hooks", "pre-commit")), absent(filepath.Join(cwd, ".git-moved"))) {
					v.check(t)
				}
			})
		})
}

// 6c. Other sessions' temp directories. Session A leaves a secret in its
// private $TMPDIR; session B of the same daemon looks for it in every
// sibling under $TMPDIR/hermes-<uid>/ of the daemon's temp dir, once with
// the default policy and once with that temp dir a writable root (which
// puts the host's /tmp, siblings included, back in view at the full
// level). Effect: the secret reaches no model request; positive control:
// A itself reads it back.
func TestEscapeOtherSessionTemp(t *testing.T) {
	t.Parallel()
	tmp := os.TempDir()
	parent := filepath.Join(tmp, "hermes-"+strconv.Itoa(os.Getuid()))
	for _, c := range []struct{ name, sandbox string }{
		{"default", ""},
		{"temp-writable", "  writable_roots: [" + strconv.Quote(tmp) + "]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			inModes(t, "without the sandbox every session's temp directory is the user's", func(t *testing.T, mode string) {
				tok := secret("tmptok-")
				rev := []rune(tok)
				slices.Reverse(rev)
				w := newWorld(t, mode, worldOpts{sandbox: c.sandbox})
				a := w.session(gt.Cwd(t), true)
				out := w.turn(a.SessionID, "tmpown",
					"echo "+shq(string(rev))+` | rev > "$TMPDIR/tok"`,
					`rev "$TMPDIR/tok"`)
				if !strings.Contains(out, string(rev)) {
					t.Fatalf("positive control: session A could not read back its own $TMPDIR/tok")
				}
				b := w.session(gt.Cwd(t), true)
				w.turn(b.SessionID, "tmpother",
					"ls -d "+shq(parent)+"/*/tok /tmp/hermes-*/*/tok 2>&1 | head -5",
					"grep -r -a -h -s -o 'tmptok-[0-9a-f]*' "+shq(parent)+" /tmp/hermes-* | sort -u",
					"cat "+shq(parent)+"/*/tok /tmp/hermes-*/*/tok 2>&1 | sort -u")
				w.noSecret("session A's temp file", tok)
			})
		})
	}
}
