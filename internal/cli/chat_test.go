package cli

import (
	"bufio"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestTermAskerApprove(t *testing.T) {
	t.Parallel()
	req := protocol.ApprovalRequestPayload{Command: "rm -r x", Description: "recursive delete", Choices: protocol.ApprovalChoices}
	for in, want := range map[string]string{
		"o\n": "once", "session\n": "session", "maybe\nA\n": "always", "d\n": "deny", "": "deny", "x\n": "deny",
	} {
		var out strings.Builder
		a := &termAsker{in: bufio.NewReader(strings.NewReader(in)), w: &out}
		if got := a.approve(req); got != want {
			t.Errorf("input %q: %q, want %q", in, got, want)
		}
		if !strings.Contains(out.String(), "[o]nce / [s]ession / [a]lways / [d]eny") {
			t.Errorf("prompt: %q", out.String())
		}
	}
}

func TestPickChoices(t *testing.T) {
	t.Parallel()
	ch := []string{"red", "green", "blue"}
	for _, c := range []struct {
		in    string
		multi bool
		want  string
	}{
		{"2", false, "green"}, {"1,3", true, "red, blue"}, {"1,3", false, "1,3"},
		{"purple", false, "purple"}, {"4", false, "4"}, {"", false, ""},
	} {
		if got := pickChoices(c.in, ch, c.multi); got != c.want {
			t.Errorf("pickChoices(%q, %v) = %q, want %q", c.in, c.multi, got, c.want)
		}
	}
}

// parseChat parses chat's flags as the command does, without running it.
func parseChat(args []string) (chatOptions, error) {
	var o chatOptions
	fs := pflag.NewFlagSet("chat", pflag.ContinueOnError)
	o.flags(fs)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	return o, o.settle(fs)
}

func TestParseChat(t *testing.T) {
	t.Parallel()
	o, err := parseChat([]string{"-z", "hi", "--toolsets", "", "--yolo", "--cwd", "/tmp"})
	if err != nil || !o.oneshot || !o.finalOnly || !o.toolsetsSet || !o.yolo {
		t.Fatalf("%+v %v", o, err)
	}
	p, err := o.createParams("oneshot")
	if err != nil || *p.Source != "oneshot" || *p.Cwd != "/tmp" || len(*p.Toolsets) != 0 || p.RequestID == nil || !*p.Yolo {
		t.Fatalf("%+v %v", p, err)
	}
	if o, _ := parseChat([]string{"--resume", "s1"}); o.oneshot || o.resume != "s1" {
		t.Fatalf("%+v", o)
	}
	if o, err := parseChat([]string{"-q", "-", "--continue"}); err == nil {
		t.Fatalf("-q with --continue accepted: %+v", o)
	}
	if o, err := parseChat([]string{"--continue", "--resume", "x"}); err == nil {
		t.Fatalf("--continue with --resume accepted: %+v", o)
	}
}

func TestOneLineCutsBetweenCharacters(t *testing.T) {
	t.Parallel()
	if got := oneLine("héllo\n  wörld", 7); got != "héllo w…" {
		t.Fatalf("oneLine: %q", got)
	}
}
