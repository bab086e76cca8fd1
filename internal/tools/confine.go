package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The confinement of file tools (read_file, search_files, write_file,
// patch), checked in this order on the resolved path:
//
//  1. Hardline, never run even if approved: any access to the profile
//     home's .env (it holds provider keys), a write to its config.yaml.
//  2. Protected, asked with Mandatory (yolo, "session" and "always" never
//     cover them): the profile home and everything in it, Env.ProtectedPaths
//     and everything in them, any .git/hooks or .git/config.
//  3. Outside the cwd and Env.WritableRoots: asked (kind "file").
//
// "In" is decided by path and by identity: a path whose ancestor (or which
// itself) has the device and inode of a place is in that place, so a bind
// mount or a hard link does not change the answer.

// access is what a file tool does with a path.
type access int

const (
	accessRead access = iota
	accessWrite
)

func (op access) verb() string {
	if op == accessWrite {
		return "writes"
	}
	return "reads"
}

// fileID is a file's identity; two paths with one fileID are one file.
type fileID struct{ dev, ino uint64 }

// statID stats p (following links: p is resolved) for its identity.
func statID(p string) (fileID, bool) {
	var st unix.Stat_t
	if unix.Stat(p, &st) != nil {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), st.Ino}, true
}

// place is a resolved path and, when it exists, its identity. The zero
// place (path "") contains nothing.
type place struct {
	path string
	id   fileID
	ok   bool // id is known: the path exists
}

// placeOf resolves p; one that cannot be resolved (a loop) keeps its clean
// form, which still matches by string.
func placeOf(p string) place {
	if p == "" || !filepath.IsAbs(p) {
		return place{}
	}
	real, err := resolvePath(p)
	if err != nil {
		real = filepath.Clean(p)
	}
	id, ok := statID(real)
	return place{path: real, id: id, ok: ok}
}

// lineage is a resolved path with the identities of it and its existing
// ancestors, nearest first.
type lineage struct {
	path string
	up   []ancestor
}

type ancestor struct {
	path string
	id   fileID
}

func lineageOf(real string) lineage {
	l := lineage{path: real}
	for p := real; ; p = filepath.Dir(p) {
		if id, ok := statID(p); ok {
			l.up = append(l.up, ancestor{p, id})
		}
		if p == "/" {
			return l
		}
	}
}

// in reports whether l is pl or below it, and l's path relative to it.
func (l lineage) in(pl place) (rel string, ok bool) {
	if pl.path == "" {
		return "", false
	}
	if within(pl.path, l.path) {
		rel, _ := filepath.Rel(pl.path, l.path)
		return rel, true
	}
	for _, a := range l.up {
		if pl.ok && a.id == pl.id {
			rel, _ := filepath.Rel(a.path, l.path)
			return rel, true
		}
	}
	return "", false
}

// policy is the confinement of one call, built from its Env.
type policy struct {
	roots     []place // the cwd and the writable roots
	profile   place   // the profile home
	envFile   place   // <profile>/.env: hardline for reads and writes
	config    place   // <profile>/config.yaml: hardline for writes
	protected []place // Env.ProtectedPaths
	home      place   // Env.UserHome when a root contains it (the home rule), else zero
}

func policyOf(env *Env) policy {
	pol := policy{roots: []place{placeOf(env.Cwd)}}
	for _, r := range env.WritableRoots {
		pol.roots = append(pol.roots, placeOf(r))
	}
	if env.ProfileHome != "" {
		pol.profile = placeOf(env.ProfileHome)
		pol.envFile = placeOf(filepath.Join(env.ProfileHome, ".env"))
		pol.config = placeOf(filepath.Join(env.ProfileHome, "config.yaml"))
	}
	for _, p := range env.ProtectedPaths {
		pol.protected = append(pol.protected, placeOf(p))
	}
	if env.UserHome != "" {
		home := placeOf(env.UserHome)
		for _, r := range pol.roots {
			if _, ok := lineageOf(home.path).in(r); ok {
				pol.home = home
			}
		}
	}
	return pol
}

// homeTop reports a write the home rule asks for: with a root containing
// the user's home, an entry directly in the home or beneath one of its
// dot-entries (~/notes.txt, ~/.config/…), as the sandbox makes them
// read-only for shell commands.
func (pol policy) homeTop(op access, l lineage) bool {
	if op != accessWrite || pol.home.path == "" {
		return false
	}
	rel, ok := l.in(pol.home)
	if !ok || rel == "" || rel == "." {
		return false
	}
	first, _, nested := strings.Cut(rel, "/")
	return !nested || strings.HasPrefix(first, ".")
}

// verdict is the decision on one path: refuse (a hardline) or ask, with
// why; neither means go ahead.
type verdict struct {
	refuse    string
	ask       string
	pattern   string // "protected" or "outside-cwd"
	mandatory bool
}

func (pol policy) judge(op access, real string) verdict {
	l := lineageOf(real)
	if why := pol.hardline(op, l); why != "" {
		return verdict{refuse: why}
	}
	if why := pol.protectedBy(l); why != "" {
		return verdict{ask: "a protected path (" + why + ")", pattern: "protected", mandatory: true}
	}
	if pol.homeTop(op, l) {
		return verdict{ask: "the top level of your home or one of its dot-directories (start-up and configuration files)", pattern: "home-top"}
	}
	for _, r := range pol.roots {
		if _, ok := l.in(r); ok {
			return verdict{}
		}
	}
	return verdict{ask: "outside the session directory and its writable roots", pattern: "outside-cwd"}
}

func (pol policy) hardline(op access, l lineage) string {
	rel, inProfile := l.in(pol.profile)
	if _, ok := l.in(pol.envFile); ok || inProfile && rel == ".env" {
		return "the profile's .env holds provider keys; no file tool reads or writes it"
	}
	if _, ok := l.in(pol.config); op == accessWrite && (ok || inProfile && rel == "config.yaml") {
		return "the gateway's config.yaml is never written by a tool"
	}
	if ownProc(l.path) {
		return "the gateway's own /proc files (environment, memory) can hold keys"
	}
	return ""
}

// ownProc reports a path in the gateway's own /proc/<pid> directory; the
// magic links in it (root, cwd, fd/N) are resolved away before this.
func ownProc(p string) bool {
	return within("/proc/"+strconv.Itoa(os.Getpid()), p)
}

func (pol policy) protectedBy(l lineage) string {
	if _, ok := l.in(pol.profile); ok {
		return "the gateway's profile home " + pol.profile.path
	}
	for _, p := range pol.protected {
		if _, ok := l.in(p); ok {
			return "protected " + p.path
		}
	}
	if gitControl(l.path) {
		return "git hooks and git config name programs git runs"
	}
	return ""
}

// gitControl reports a .git/hooks or .git/config component pair in p.
func gitControl(p string) bool {
	cs := strings.Split(p, "/")
	for i := 0; i+1 < len(cs); i++ {
		if cs[i] == ".git" && (cs[i+1] == "hooks" || cs[i+1] == "config") {
			return true
		}
	}
	return false
}

// hardlineID reports whether an opened file is one no tool may touch with
// op: the check repeated on the file actually opened, so a rename or a
// link swapped in after the judgement still cannot reach it.
func (pol policy) hardlineID(op access, id fileID) bool {
	return pol.envFile.ok && id == pol.envFile.id ||
		op == accessWrite && pol.config.ok && id == pol.config.id
}

// grant is a path a file tool may use: judged and, when needed, approved.
type grant struct {
	tool string
	op   access
	path string // the resolved path, or the path as given when !resolved
	// resolved is false for an approved path through a /proc magic link
	// that could not be resolved: it is opened following links.
	resolved bool
	pol      policy
}

// confine resolves the tool's path argument p and applies the policy; res
// is the model's result when ok is false (refused, denied, unresolvable).
func confine(ctx context.Context, env *Env, tool string, op access, p string) (g *grant, res Result, ok bool, err error) {
	abs, err := joinCwd(env, p)
	if err == nil && op == accessWrite && strings.HasSuffix(p, "/") {
		err = errors.New("a file to write cannot end in /")
	}
	if err != nil {
		return nil, failf("invalid path: %v", err), false, nil
	}
	g = &grant{tool: tool, op: op, pol: policyOf(env)}
	real, err := resolvePath(abs)
	var ue *unresolvedError
	switch {
	case errors.As(err, &ue):
		g.path = abs
		res, ok, err = ask(ctx, env, ApprovalRequest{
			Kind: KindFile, Command: tool + " " + abs, Mandatory: true,
			Description: fmt.Sprintf("%s through %s, a link to %q whose target cannot be checked", op.verb(), ue.Path, ue.Target),
			Pattern:     "file:" + tool + ":unresolved",
		})
		return g, res, ok, err
	case err != nil:
		return nil, failf("cannot resolve %s: %v", abs, err), false, nil
	}
	g.path, g.resolved = real, true
	v := g.pol.judge(op, real)
	switch {
	case v.refuse != "":
		return nil, failf("%s %s is never allowed, not even with approval: %s", tool, real, v.refuse), false, nil
	case v.ask == "":
		return g, Result{}, true, nil
	}
	res, ok, err = ask(ctx, env, ApprovalRequest{
		Kind: KindFile, Command: tool + " " + real, Mandatory: v.mandatory,
		Description: op.verb() + " " + v.ask,
		Pattern:     "file:" + tool + ":" + v.pattern,
	})
	return g, res, ok, err
}

// shields are the protected places a search under root skips: all but
// those containing root (a root inside one was asked for with Mandatory).
// The profile's config.yaml (a hard link of it elsewhere) goes with the
// profile home.
func (pol policy) shields(root string) []place {
	l := lineageOf(root)
	var out []place
	if _, in := l.in(pol.profile); !in && pol.profile.path != "" {
		out = append(out, pol.profile, pol.config)
	}
	for _, p := range pol.protected {
		if _, in := l.in(p); p.path != "" && !in {
			out = append(out, p)
		}
	}
	return out
}
