package cli

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

var update = flag.Bool("update", false, "rewrite internal/cli/testdata/*.golden from the current output")

// runMain runs the command line in process; only for commands that need
// no gateway (help, completion, usage errors).
func runMain(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

// golden compares got with testdata/name.golden (or rewrites it with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./internal/cli -run Golden -update`)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; -update rewrites it):\n%s", path, diff)
	}
}

// visibleCommands lists the path (without "hermes") of every command of
// the tree a person may run, the root first.
func visibleCommands() [][]string {
	root := newRoot(&env{})
	var out [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		out = append(out, path)
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				walk(sub, append(append([]string{}, path...), sub.Name()))
			}
		}
	}
	walk(root, nil)
	return out
}

func goldenName(path []string) string {
	if len(path) == 0 {
		return "help_hermes"
	}
	return "help_" + strings.Join(path, "_")
}

// TestHelpGolden: --help on every command prints its generated help (a
// golden file each), -h and `hermes help CMD` print the same, and every
// visible flag of the command is in it.
func TestHelpGolden(t *testing.T) {
	t.Parallel()
	for _, path := range visibleCommands() {
		out, errOut, code := runMain(t, append(path, "--help")...)
		if code != 0 || errOut != "" {
			t.Fatalf("%v --help: exit %d, stderr %q", path, code, errOut)
		}
		golden(t, goldenName(path), out)
		for _, args := range [][]string{append(path, "-h"), append([]string{"help"}, path...)} {
			if got, _, code := runMain(t, args...); code != 0 || got != out {
				t.Errorf("%v: exit %d, output differs from --help:\n%s", args, code, cmp.Diff(out, got))
			}
		}
		cmd, _, err := newRoot(&env{}).Find(path)
		if err != nil {
			t.Fatal(err)
		}
		check := func(f *pflag.Flag) {
			if !f.Hidden && !strings.Contains(out, "--"+f.Name) {
				t.Errorf("%v --help does not show --%s", path, f.Name)
			}
		}
		cmd.LocalFlags().VisitAll(check)
		cmd.InheritedFlags().VisitAll(check)
	}
}

func TestCompletionGolden(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, errOut, code := runMain(t, "completion", shell)
		if code != 0 || errOut != "" || !strings.Contains(out, "hermes") {
			t.Fatalf("completion %s: exit %d, stderr %q", shell, code, errOut)
		}
		golden(t, "completion_"+shell, out)
	}
	if _, errOut, code := runMain(t, "completion", "tcsh"); code != exitUsage || errOut == "" {
		t.Errorf("completion tcsh: exit %d, stderr %q; want 2 and a message", code, errOut)
	}
}

// TestCompleteCommandsAndFlags drives cobra's completion entry point the
// way the shell scripts do.
func TestCompleteCommandsAndFlags(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]string{
		"__complete ses":             "sessions",
		"__complete sessions sh":     "show",
		"__complete chat --con":      "--continue",
		"__complete gateway st":      "status",
		"__complete completion z":    "zsh",
		"__complete help sessions i": "import",
	} {
		out, _, code := runMain(t, strings.Fields(args)...)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, %q; want %q among the completions", args, code, out, want)
		}
	}
}

// TestUsageErrors: every usage error exits 2 and says what to do.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "hermes --help"},
		{[]string{"frobnicate"}, "hermes --help"},
		{[]string{"gatway"}, `did you mean "gateway"`},
		{[]string{"gateway"}, "gateway needs a verb"},
		{[]string{"gateway", "fly"}, "hermes gateway --help"},
		{[]string{"sessions", "lst"}, `did you mean "list"`},
		{[]string{"chat", "--contine"}, "did you mean --continue?"},
		{[]string{"chat", "-contine"}, "did you mean --continue?"},
		{[]string{"sessions", "show", "x", "--ful"}, "did you mean --full?"},
		{[]string{"gateway", "status", "--jsn"}, "did you mean --json?"},
		{[]string{"sessions", "list", "--limit", "many"}, "hermes sessions list --help"},
		{[]string{"chat", "-q"}, "flag needs an argument"},
		{[]string{"chat", "stray"}, "the prompt goes after -q or -z"},
		{[]string{"chat", "-q", "a", "--continue"}, "not with -q or -z"},
		{[]string{"sessions", "info"}, "usage: hermes sessions info ID"},
		{[]string{"sessions", "show", "x", "--json", "--markdown"}, "exclude each other"},
		{[]string{"help", "frob"}, `unknown command "frob"`},
		{[]string{"version", "extra"}, "unexpected argument"},
	} {
		_, errOut, code := runMain(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestNormalizeArgs: the spellings the Go flag package accepted still
// mean what they meant.
func TestNormalizeArgs(t *testing.T) {
	t.Parallel()
	root := newRoot(&env{})
	for in, want := range map[string]string{
		"gateway status -json":                "gateway status --json",
		"-home /h chat -resume local-1":       "--home /h chat --resume local-1",
		"chat -q -json":                       "chat --query -json",
		"chat --q x -z=y":                     "chat --query x --final=y",
		"chat -no-autostart -toolsets= -yolo": "chat --no-autostart --toolsets= --yolo",
		"sessions info -json local-x -help":   "sessions info --json local-x --help",
		"sessions info show -json":            "sessions info show --json",
		"chat -- -json":                       "chat -- -json",
		"chat -bogus":                         "chat -bogus",
		"worker -json":                        "worker -json",
	} {
		got := strings.Join(normalizeArgs(root, strings.Fields(in)), " ")
		if got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}

func TestNearestFlag(t *testing.T) {
	t.Parallel()
	cmd, _, _ := newRoot(&env{}).Find([]string{"chat"})
	for name, want := range map[string]string{
		"contnue": "continue", "resum": "resume", "modle": "model", "no-auto": "no-autostart", "xyzzy": "", "j": "",
	} {
		if got := nearestFlag(cmd, name); got != want {
			t.Errorf("nearestFlag(%q) = %q, want %q", name, got, want)
		}
	}
}

// BenchmarkMain is the command line's own share of a start: building the
// command tree, normalizing and parsing, and running a command that does no
// I/O but its output (the process start and package init are not in it;
// test/bench README has those).
func BenchmarkMain(b *testing.B) {
	for _, args := range [][]string{{"version"}, {"--help"}, {"sessions", "show", "--help"}} {
		b.Run(strings.Join(args, "_"), func(b *testing.B) {
			for b.Loop() {
				if code := Main(context.Background(), args, Stdio{Out: io.Discard, Err: io.Discard}); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
