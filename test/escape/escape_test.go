package escape

import (
	"archive/tar"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// detach runs inner as a process that has left the tool's process tree:
// without the marker variable, in a new session, forked twice (setsid -f),
// so its parent is init (or a subreaper) and not the tool's shell.
func detach(inner string) string {
	return "env -u HERMES_TOOL_PROCESS setsid -f nohup sh -c " + shq(inner) + " >/dev/null 2>&1 </dev/null & disown"
}

// awaitFile is a bounded shell wait for path to exist (the tool's own
// loop; tests never sleep).
func awaitFile(path string) string {
	return "for i in $(seq 200); do [ -e " + shq(path) + " ] && break; sleep 0.05; done"
}

// 1. Detaching. A tool process that leaves the tool's process tree and
// drops HERMES_TOOL_PROCESS asks the control socket for a ticket (as the
// attacker binary and as `hermes` itself), upgrades and answers a pending
// approval: of another session while it is pending, and of its own session
// in the same turn. Effect: the prompts stay pending until the test denies
// them, the removals never happen, and the CLI got no session list and no
// login link.
func TestEscapeDetachedProcessAnswersApproval(t *testing.T) {
	t.Parallel()
	inModes(t, "the control socket's ancestry walk cannot see a process that double-forked away from the tool "+
		"with HERMES_TOOL_PROCESS removed; only the sandbox (socket hidden, own pid namespace) stops it",
		func(t *testing.T, mode string) {
			w := newWorld(t, mode, worldOpts{})
			sock, api, home := w.d.Socket(), w.api(), w.f.Home

			// Another session's approval, pending while the attacker runs.
			victimCwd := gt.Cwd(t)
			owned := ownedDir(t, victimCwd)
			victim := w.session(victimCwd, false)
			p, adm := w.pendingApproval(victim.SessionID, "victim", owned)

			atk := gt.Cwd(t)
			w.attacker(atk)
			// Besides the real path (hidden by the sandbox), the socket is
			// made reachable through hard links in the attacker's cwd, as a
			// misplaced HERMES_HOME or writable root would: the control
			// socket's own refusal of sandboxed peers is tested too.
			linked := filepath.Join(atk, "gw.sock")
			fakeHome := filepath.Join(atk, "fakehome")
			if err := os.Mkdir(fakeHome, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, l := range []string{linked, filepath.Join(fakeHome, "gateway.sock")} {
				if err := os.Link(sock, l); err != nil {
					t.Fatalf("hard-link the control socket: %v", err)
				}
			}
			attacker := w.session(atk, true)
			approve := attackCmd("approve", "-api", api, "-session", victim.SessionID, "-socket", sock, "-socket", linked,
				"-lock", atk+"/a.lock", "-choice", protocol.ChoiceAlways)
			cli := "./hermes --home " + home + " sessions list --json > list.out 2>&1; " +
				"./hermes --home " + home + " dashboard --no-open --no-autostart > dash.out 2>&1; " +
				"./hermes --home " + fakeHome + " sessions list --json > list2.out 2>&1; " +
				"./hermes --home " + fakeHome + " dashboard --no-open --no-autostart > dash2.out 2>&1; touch cli.done"
			w.turn(attacker.SessionID, "detach",
				detach(approve+" > a.out 2>&1")+"; "+awaitFile("a.lock.held")+"; flock a.lock true; cat a.out",
				detach(cli)+"; "+awaitFile("cli.done")+"; cat list.out dash.out list2.out dash2.out")
			w.stillPending(victim.SessionID, p, owned)
			for _, f := range []string{"list.out", "dash.out", "list2.out", "dash2.out"} {
				b, _ := os.ReadFile(filepath.Join(atk, f))
				if strings.Contains(string(b), victim.SessionID) || strings.Contains(string(b), "ticket=") {
					t.Errorf("HOLE: a detached `hermes` got operator access (%s):\n%s", f, b)
				}
			}
			w.deny(victim.SessionID, p, adm, owned)

			// Its own session, same turn: the attacker is started by the
			// first call and waits for the approval the second call asks.
			self := gt.Cwd(t)
			w.attacker(self)
			ownedSelf := ownedDir(t, self)
			s := w.session(self, false)
			if err := os.Link(sock, filepath.Join(self, "gw.sock")); err != nil {
				t.Fatal(err)
			}
			approveSelf := attackCmd("approve", "-api", api, "-session", s.SessionID, "-socket", sock, "-socket", self+"/gw.sock",
				"-lock", self+"/b.lock", "-choice", protocol.ChoiceOnce, "-for", "8s")
			w.f.Turns.Set("selfturn",
				toolCall(wrap(detach(approveSelf+" > b.out 2>&1")+"; "+awaitFile("b.lock.held"), marker("selfturn", 0))),
				toolCall("rm -r -- "+ownedSelf),
				textReply("selfturn_DONE"))
			rc := gt.Submit(t, w.v, s.SessionID, "selfturn", "selfturn")
			ps := w.awaitApproval(s.SessionID, "rm -r")
			awaitUnlocked(t, filepath.Join(self, "b.lock")) // the attacker ended (or was killed with its sandbox)
			b, _ := os.ReadFile(filepath.Join(self, "b.out"))
			t.Logf("same-session attacker output:\n%s", b)
			w.stillPending(s.SessionID, ps, ownedSelf)
			w.deny(s.SessionID, ps, rc.AdmissionID, ownedSelf)
			w.ran("selfturn", 1)
		})
}

// 2. /proc of the daemon. A tool reads the daemon's environ (a canary and
// the profile's OPENAI_API_KEY) and its memory (a launch api_key held only
// there), by pid and by scanning every visible hermes process. Effect:
// none of the three reaches any model request.
func TestEscapeDaemonProcReadable(t *testing.T) {
	t.Parallel()
	offReason := ""
	if os.Geteuid() == 0 {
		offReason = "these tests run as root: outside the sandbox a tool keeps CAP_SYS_PTRACE, which overrides " +
			"PR_SET_DUMPABLE 0, so /proc/<daemon>/environ and mem stay readable"
	}
	inModes(t, offReason, func(t *testing.T, mode string) {
		canary, envKey, launchKey := secret("canary-"), secret("sk-escape-env-"), secret("sk-escape-launch-")
		w := newWorld(t, mode, worldOpts{
			cfg: gt.Config{APIKeyEnv: "OPENAI_API_KEY"},
			env: []string{"HERMES_TEST_CANARY=" + canary, "OPENAI_API_KEY=" + envKey},
		})
		pid := strconv.Itoa(w.d.PID())
		cwd := gt.Cwd(t)
		w.attacker(cwd)
		s := w.session(cwd, true, func(p *protocol.SessionCreateParams) { p.APIKey = &launchKey })
		cmds := []string{
			"tr '\\0' '\\n' < /proc/" + pid + "/environ",
			"for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; done 2>/dev/null | grep -a -E 'CANARY|API_KEY|sk-'",
			"cat /proc/" + pid + "/cmdline | tr '\\0' ' '; ls -l /proc/" + pid + "/fd /proc/" + pid + "/cwd",
			attackCmd("scanmem", "-pid", pid, "-prefix", "sk-escape-"),
			attackCmd("scanmem", "-hermes", "-prefix", "sk-escape-"),
			attackCmd("scanmem", "-hermes", "-prefix", "canary-"),
		}
		if py := interpreter("python3"); py != "" {
			cmds = append(cmds, py+` -c "
import re
pid = `+pid+`
found = set()
with open('/proc/%d/maps' % pid) as maps, open('/proc/%d/mem' % pid, 'rb', 0) as mem:
    for line in maps:
        f = line.split()
        if f[1][0] != 'r' or (len(f) > 5 and f[5].startswith('[v')):
            continue
        lo, hi = (int(x, 16) for x in f[0].split('-'))
        try:
            mem.seek(lo); found.update(re.findall(rb'sk-escape-[A-Za-z0-9_-]*', mem.read(hi - lo)))
        except OSError:
            pass
print(found)
"`)
		}
		w.turn(s.SessionID, "procdaemon", cmds...)
		w.noSecret("the daemon's HERMES_TEST_CANARY", canary)
		w.noSecret("the daemon's OPENAI_API_KEY", envKey)
		w.noSecret("the session's launch api_key", launchKey)
	})
}

// 3. Environment. Secrets under names no deny-list knows reach no tool;
// a name in terminal.env_passthrough does (the positive control).
func TestEscapeEnvironmentAllowList(t *testing.T) {
	t.Parallel()
	inModes(t, "", func(t *testing.T, mode string) {
		hook, cloud, deploy, passed := secret("hook-"), secret("cloud-"), secret("deploy-"), secret("passed-")
		w := newWorld(t, mode, worldOpts{
			extra: "terminal:\n  env_passthrough: [\"ESCAPE_PASSED\"]\n",
			env: []string{"WEBHOOK_URL=https://hooks.example/" + hook, "MY_CLOUD=" + cloud,
				"DEPLOY_TARGET=" + deploy, "ESCAPE_PASSED=" + passed},
		})
		cwd := gt.Cwd(t)
		s := w.session(cwd, true)
		cmds := []string{"env", "tr '\\0' '\\n' < /proc/self/environ", "tr '\\0' '\\n' < /proc/1/environ", "declare -p"}
		if py := interpreter("python3"); py != "" {
			cmds = append(cmds, py+` -c "import os; print(dict(os.environ))"`)
		}
		out := w.turn(s.SessionID, "envdump", cmds...)
		w.noSecret("WEBHOOK_URL's value", hook)
		w.noSecret("MY_CLOUD's value", cloud)
		w.noSecret("DEPLOY_TARGET's value", deploy)
		if !strings.Contains(out, passed) {
			t.Errorf("positive control: ESCAPE_PASSED, named in terminal.env_passthrough, did not reach the tool")
		}
	})
}

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

// 7. The pane credential. While a dashboard terminal pane runs `hermes
// chat` on a session with a pending approval, a tool in another session
// scans every visible process's environment, descriptors and memory for
// the pane's internal credential and tries each candidate with
// ?internal=. Effect: the approval stays pending (no server-internal
// operator appeared) until the test denies it.
func TestEscapePaneCredential(t *testing.T) {
	t.Parallel()
	inModes(t, "outside the sandbox a same-uid tool can read the pane's `hermes chat` memory (/proc/<pid>/mem), "+
		"where the credential lives once read from its descriptor", func(t *testing.T, mode string) {
		w := newWorld(t, mode, worldOpts{})
		victimCwd := gt.Cwd(t)
		owned := ownedDir(t, victimCwd)
		victim := w.session(victimCwd, false)
		p, adm := w.pendingApproval(victim.SessionID, "panevictim", owned)
		openPane(t, w, victim.SessionID)

		atk := gt.Cwd(t)
		w.attacker(atk)
		s := w.session(atk, true)
		w.turn(s.SessionID, "panecred",
			`for p in /proc/[0-9]*; do tr '\0' '\n' < $p/environ 2>/dev/null | grep -a HERMES_GATEWAY_INTERNAL && echo "in $p"; done; true`,
			`for p in /proc/[0-9]*; do cat $p/cmdline 2>/dev/null | tr '\0' ' '; echo; done | grep -a chat; true`,
			attackCmd("approve", "-api", w.api(), "-session", victim.SessionID, "-scan-internal", "-choice", protocol.ChoiceAlways, "-for", "3s"))
		w.stillPending(victim.SessionID, p, owned)
		w.deny(victim.SessionID, p, adm, owned)
	})
}

// 8. The legacy token. With dashboard.legacy_token on, a tool reads
// dashboard.token from the profile home, searches the disk for it and
// uses what it finds against a pending approval. Effect: the token (read
// by the test from the file) is in no model request, and the approval
// stays pending until the test denies it.
func TestEscapeLegacyToken(t *testing.T) {
	t.Parallel()
	inModes(t, "without the sandbox dashboard.token is a 0600 file of the user, readable by every tool", func(t *testing.T, mode string) {
		w := newWorld(t, mode, worldOpts{extra: "dashboard:\n  legacy_token: true\n"})
		b, err := os.ReadFile(filepath.Join(w.f.Home, "dashboard.token"))
		token := strings.TrimSpace(string(b))
		if err != nil || token == "" {
			t.Fatalf("legacy token file: %q %v", b, err)
		}
		victimCwd := gt.Cwd(t)
		owned := ownedDir(t, victimCwd)
		victim := w.session(victimCwd, false)
		p, adm := w.pendingApproval(victim.SessionID, "tokenvictim", owned)

		atk := gt.Cwd(t)
		w.attacker(atk)
		s := w.session(atk, true)
		tokFile := filepath.Join(w.f.Home, "dashboard.token")
		w.turn(s.SessionID, "legacytoken",
			"cat "+shq(tokFile),
			`find / -maxdepth 4 \( -path /proc -o -path /sys -o -path /dev \) -prune -o -name dashboard.token -print 2>/dev/null | xargs -r cat`,
			attackCmd("approve", "-api", w.api(), "-session", victim.SessionID, "-token-file", shq(tokFile),
				"-token-under", "/tmp", "-token-under", shq(filepath.Dir(filepath.Dir(w.f.Home))), "-choice", protocol.ChoiceAlways, "-for", "3s"))
		w.noSecret("the legacy dashboard token", token)
		w.stillPending(victim.SessionID, p, owned)
		w.deny(victim.SessionID, p, adm, owned)
	})
}

// 9. Killing the turn kills what the command left running: a background
// child that holds an exclusive flock on a file in the cwd, once plainly
// backgrounded (same process group) and once detached (setsid -f, its own
// session and process group). After session.interrupt the test can take
// the lock: the holder is gone, no orphan.
func TestEscapeInterruptKillsBackground(t *testing.T) {
	t.Parallel()
	hold := "exec 9>held.lock; flock 9; touch held.ok; exec sleep 1000"
	for _, c := range []struct {
		name, start, offReason string
	}{
		{"plain", "( " + hold + " ) >/dev/null 2>&1 </dev/null &", ""},
		{"detached", detach(hold), "a setsid process leaves the process group the terminal tool kills; only the sandbox's pid namespace takes it down"},
	} {
		fallbackReason := ""
		if c.name == "detached" {
			fallbackReason = "level landlock+seccomp has no pid namespace: only the process group ends background children " +
				"(documented in internal/sandbox/sandbox.go), and setsid leaves it"
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			inModesExcept(t, c.offReason, fallbackReason, func(t *testing.T, mode string) {
				w := newWorld(t, mode, worldOpts{})
				cwd := gt.Cwd(t)
				lock := filepath.Join(cwd, "held.lock")
				t.Cleanup(func() { killHolders(lock) })
				s := w.session(cwd, true)
				w.f.Turns.Set("hold", toolCall(c.start+"\n"+awaitFile("held.ok")+"; echo HOLDING; exec sleep 1000"), textReply("hold_DONE"))
				rc := gt.Submit(t, w.v, s.SessionID, "hold", "hold")
				gt.Await(t, wait, func() bool { return exists(filepath.Join(cwd, "held.ok")) })
				snap := gt.Resume(t, w.v, s.SessionID)
				if _, err := w.v.InterruptSession(gt.Context(t, wait), protocol.SessionInterruptParams{SessionID: s.SessionID,
					ExecutionGeneration: snap.ExecutionGeneration}); err != nil {
					t.Fatalf("session.interrupt: %v", err)
				}
				if mc := gt.AwaitComplete(t, w.v, rc.AdmissionID, wait); mc.Outcome != protocol.OutcomeInterrupted {
					t.Errorf("outcome %q, want interrupted", mc.Outcome)
				}
				if !unlockedWithin(lock) {
					t.Errorf("HOLE: the background child the command started still holds %s %v after the turn was interrupted (an orphan)", lock, wait)
				}
			})
		})
	}
}

// Strict where the full sandbox cannot be built (the daemon cannot create
// user namespaces): the tool call fails, the command never runs bare.
// Effect: the file the command would create does not exist. It runs in
// TestEscapeLandlockFallback's inner run.
func TestEscapeStrictNeverRunsBare(t *testing.T) {
	t.Parallel()
	if !insideFallback() {
		t.Skip("runs inside TestEscapeLandlockFallback, where user namespaces cannot be created")
	}
	w := newWorld(t, modeFallback, worldOpts{strictNoUserns: true})
	cwd := gt.Cwd(t)
	s := w.session(cwd, true)
	w.script("strictbare", "touch ran.marker")
	rc := gt.Submit(t, w.v, s.SessionID, "strictbare", "strictbare")
	gt.AwaitComplete(t, w.v, rc.AdmissionID, wait)
	out := w.toolOutput("strictbare")
	t.Logf("tool output:\n%s", out)
	absent(filepath.Join(cwd, "ran.marker")).check(t)
	if strings.Contains(out, marker("strictbare", 0)) {
		t.Errorf("HOLE: strict ran the command although the full sandbox cannot be built here")
	}
}

// TestEscapeLandlockFallback runs the whole suite again at the level auto
// falls back to where user namespaces are unavailable (landlock+seccomp:
// no pid or mount namespace): this test binary re-executed inside a user
// namespace that can create none. Each inner failure is reported here.
func TestEscapeLandlockFallback(t *testing.T) {
	if insideFallback() {
		t.Skip("this is the inner run")
	}
	t.Parallel()
	if err := fallbackPossible(); err != nil {
		t.Skipf("cannot run a process tree without user namespaces here (unshare -Ur, max_user_namespaces=0): %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := noUsernsCommand(self, "-test.run", "^TestEscape", "-test.v", "-test.count=1", "-test.timeout=150s")
	cmd.Env = append(os.Environ(), fallbackEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("inner run (landlock+seccomp fallback):\n%s", out)
	for _, line := range strings.Split(string(out), "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "--- FAIL:") {
			t.Errorf("at the landlock+seccomp fallback level: %s", l)
		}
	}
	if err != nil && !t.Failed() {
		t.Errorf("inner run: %v", err)
	}
}
