// Package checkpoint is the shadow-git engine behind session checkpoints
// (issue 11): one private git repository per working directory, kept under
// the profile home, that snapshots a cwd before an agent changes it and puts
// paths back on a rewind.
//
// It imports nothing internal and must never import store, session or
// authority: the authority decides when a cwd is snapshotted and which
// commits a session keeps.
//
// Invariants:
//   - The user's own repository is never touched: every git process runs with
//     GIT_DIR (the shadow repository), GIT_WORK_TREE (the cwd) and
//     GIT_INDEX_FILE (the shadow index) set, with the user's and the system's
//     git config ignored (GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM=1)
//     and hooks disabled (core.hooksPath=/dev/null: no hook can exist there).
//     Git never descends into a path named .git, so the cwd's .git is not
//     snapshotted, restored or removed.
//   - .gitignore files in the cwd (and its .git/info/exclude) are respected:
//     ignored paths are neither snapshotted nor touched by a restore.
//   - Files above the size limit are skipped and listed; a restore never
//     removes or overwrites a path that was skipped.
//   - Git runs as a child of the daemon (the gateway's own operation, never
//     under the tool sandbox), with a clean environment and a timeout.
//
// The engine knows nothing of sessions or SQLite: callers name the commits
// they want kept (Keep) and dropped (Drop). Operations on one cwd are
// serialized by a lock per repository; different cwds run in parallel.
package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// ErrNoGit means the system git is missing: checkpoints are unavailable and
// the caller goes on without them (saying so).
var ErrNoGit = errors.New("git is not installed (or not on PATH): checkpoints are unavailable")

// DefaultTimeout bounds one git process.
const DefaultTimeout = 60 * time.Second

// refPrefix is where kept commits live in a shadow repository.
const refPrefix = "refs/hermes/"

// Engine drives the shadow repositories under one root directory.
type Engine struct {
	git     string        // absolute path of the git binary
	root    string        // $HERMES_HOME/checkpoints
	timeout time.Duration // per git process

	mu    sync.Mutex
	locks map[string]*sync.Mutex // repo dir → lock serializing its operations; guarded by mu
}

// New returns an engine storing its repositories under root. It fails with
// ErrNoGit when git cannot be found.
func New(root string) (*Engine, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrNoGit
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	return &Engine{git: git, root: abs, timeout: DefaultTimeout, locks: map[string]*sync.Mutex{}}, nil
}

// Root is the directory holding every shadow repository.
func (e *Engine) Root() string { return e.root }

// repoDir is the shadow repository of cwd: a hash of the cwd, so no path of
// the user's appears in a file name.
func (e *Engine) repoDir(cwd string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(cwd)))
	return filepath.Join(e.root, hex.EncodeToString(sum[:16]))
}

// lock serializes the operations on cwd's repository.
func (e *Engine) lock(cwd string) func() {
	dir := e.repoDir(cwd)
	e.mu.Lock()
	l := e.locks[dir]
	if l == nil {
		l = &sync.Mutex{}
		e.locks[dir] = l
	}
	e.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// repo is one shadow repository bound to its work tree.
type repo struct {
	e   *Engine
	dir string // GIT_DIR
	cwd string // GIT_WORK_TREE
}

// open returns cwd's repository, creating it on first use.
func (e *Engine) open(ctx context.Context, cwd string) (*repo, error) {
	fi, err := os.Stat(cwd)
	if err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s", ErrNoCwd, cwd)
	}
	r := &repo{e: e, dir: e.repoDir(cwd), cwd: cwd}
	if _, err := os.Stat(filepath.Join(r.dir, "HEAD")); err == nil {
		return r, nil
	}
	if err := os.MkdirAll(e.root, 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(e.root, ".init-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	init := exec.CommandContext(ctx, e.git, "init", "-q", "--bare", tmp)
	init.Env = baseEnv()
	if out, err := init.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git init: %v: %s", err, bytes.TrimSpace(out))
	}
	if err := os.WriteFile(filepath.Join(tmp, "hermes-cwd"), []byte(cwd+"\n"), 0o600); err != nil {
		return nil, err
	}
	// A rename makes the repository appear whole or not at all.
	if err := os.Rename(tmp, r.dir); err != nil && !errors.Is(err, fs.ErrExist) {
		if _, serr := os.Stat(filepath.Join(r.dir, "HEAD")); serr != nil {
			return nil, err
		}
	}
	return r, nil
}

// ErrNoCwd means the working directory is gone (or not a directory).
var ErrNoCwd = errors.New("the working directory does not exist")

// baseEnv is the whole environment of a git process: nothing of the
// daemon's own environment (no GIT_* variable of the user) but PATH.
func baseEnv() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"LC_ALL=C",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=hermes", "GIT_AUTHOR_EMAIL=hermes@localhost",
		"GIT_COMMITTER_NAME=hermes", "GIT_COMMITTER_EMAIL=hermes@localhost",
		// git deflates every new object with a fresh zlib stream (~300 KiB
		// of state, malloc'd and freed per object). With glibc's default
		// trim threshold each free hands the heap top back to the kernel
		// and the next object faults it in again: a first snapshot of
		// 10,000 files took 180,000 page faults and 2–3 s of system time,
		// against 800 faults and 0.3 s with a threshold that keeps the
		// memory. Ignored by other C libraries.
		"MALLOC_TRIM_THRESHOLD_=" + mallocTrimThreshold,
		"GLIBC_TUNABLES=glibc.malloc.trim_threshold=" + mallocTrimThreshold,
	}
}

// mallocTrimThreshold is 32 MiB: a git process keeps up to that much freed
// heap until it exits, instead of returning it after every object.
const mallocTrimThreshold = "33554432"

// settings are passed to every git process instead of being written to the
// repository's config, so an old repository gets them too.
var settings = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.autocrlf=false",
	"-c", "core.safecrlf=false",
	"-c", "core.symlinks=true",
	"-c", "core.quotepath=false",
	"-c", "core.untrackedCache=true",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "commit.gpgSign=false",
}

// index is the shadow index: it persists between snapshots, so git re-reads
// only the files whose stat data changed since the last one.
func (r *repo) index() string { return filepath.Join(r.dir, "index") }

// abs is the file of a relative, slash-separated path of the work tree.
func (r *repo) abs(p string) string { return filepath.Join(r.cwd, filepath.FromSlash(p)) }

// git runs one git command on the repository with stdin, returning stdout.
func (r *repo) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.gitWith(ctx, stdin, nil, args...)
}

// gitWith is git with more "-c name=value" settings for this one process.
func (r *repo) gitWith(ctx context.Context, stdin []byte, config []string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, r.e.timeout)
	defer cancel()
	argv := append([]string{}, settings...)
	for _, c := range config {
		argv = append(argv, "-c", c)
	}
	if excl := filepath.Join(r.cwd, ".git", "info", "exclude"); r.cwd != r.dir && fileExists(excl) {
		argv = append(argv, "-c", "core.excludesFile="+excl)
	}
	cmd := exec.CommandContext(ctx, r.e.git, append(argv, args...)...)
	cmd.Dir = r.cwd // pathspecs are relative to the work tree
	cmd.Env = append(baseEnv(),
		"GIT_DIR="+r.dir, "GIT_WORK_TREE="+r.cwd, "GIT_INDEX_FILE="+r.index())
	cmd.WaitDelay = time.Second
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		return nil, &gitError{cmd: args[0], err: err, stderr: stderr.String()}
	}
	return stdout.Bytes(), nil
}

// gitError is a git process that failed; stderr is kept for callers that
// recognize a message.
type gitError struct {
	cmd    string
	err    error
	stderr string
}

func (g *gitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", g.cmd, g.err, firstLine(g.stderr))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// nulJoin is the -z form of a path list (--pathspec-file-nul).
func nulJoin(items []string) []byte {
	var b bytes.Buffer
	for _, s := range items {
		b.WriteString(s)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// nulSplit splits -z output.
func nulSplit(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}
