package escape

import (
	"os"
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
