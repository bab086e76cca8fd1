package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// asker answers approval and clarify requests for a one-shot.
type asker interface {
	approve(p protocol.ApprovalRequestPayload) string
	clarify(p protocol.ClarifyRequestPayload) string
}

// newAsker asks on the terminal when stdin is one, else refuses at once.
func newAsker(e *env) asker {
	if isTerminal(e.io.In) {
		return &termAsker{in: bufio.NewReader(e.io.In), w: e.io.Err}
	}
	return denyAsker{w: e.io.Err}
}

// denyAsker is the answer without a terminal: deny approvals (saying what
// was refused and how to allow it), give clarify an empty answer.
type denyAsker struct{ w io.Writer }

func (d denyAsker) approve(p protocol.ApprovalRequestPayload) string {
	fmt.Fprintf(d.w, "hermes: refused %q (%s): approvals need a terminal; "+
		"allow such commands with --yolo, or run `hermes chat` in a terminal\n", p.Command, p.Description)
	return protocol.ChoiceDeny
}

func (d denyAsker) clarify(p protocol.ClarifyRequestPayload) string {
	fmt.Fprintf(d.w, "hermes: the agent asked %q; answered empty (no terminal)\n", p.Question)
	return ""
}

// termAsker asks on the terminal: prompts go to w, answers come from in.
type termAsker struct {
	in *bufio.Reader
	w  io.Writer
}

func (t *termAsker) line() (string, bool) {
	s, err := t.in.ReadString('\n')
	if err != nil && s == "" {
		return "", false
	}
	return strings.TrimSpace(s), true
}

// approve loops until a choice the prompt offers; end of input denies.
func (t *termAsker) approve(p protocol.ApprovalRequestPayload) string {
	// Visible: a command must not be able to erase or restyle its own
	// line (ESC, CR, bidi controls are shown escaped, never sent raw).
	fmt.Fprintf(t.w, "\n⚠ approval needed: %s\n  $ %s\n", protocol.Visible(p.Description), protocol.Visible(p.Command))
	for {
		fmt.Fprintf(t.w, "  %s? ", choiceHint(p.Choices))
		s, ok := t.line()
		if !ok {
			fmt.Fprintln(t.w, "deny")
			return protocol.ChoiceDeny
		}
		if c := matchChoice(s, p.Choices); c != "" {
			return c
		}
	}
}

// choiceHint renders "[o]nce / [s]ession / [a]lways / [d]eny".
func choiceHint(choices []string) string {
	parts := make([]string, 0, len(choices))
	for _, c := range choices {
		if c == "" {
			continue
		}
		parts = append(parts, "["+c[:1]+"]"+c[1:])
	}
	return strings.Join(parts, " / ")
}

// matchChoice accepts a choice or its first letter.
func matchChoice(s string, choices []string) string {
	s = strings.ToLower(s)
	for _, c := range choices {
		if s == c || (len(s) == 1 && strings.HasPrefix(c, s)) {
			return c
		}
	}
	return ""
}

// clarify shows the question and its choices; a number picks a choice (a
// comma-separated list when multi-select), anything else is the answer.
func (t *termAsker) clarify(p protocol.ClarifyRequestPayload) string {
	fmt.Fprintf(t.w, "\n? %s\n", protocol.VisibleText(p.Question))
	for i, c := range p.Choices {
		fmt.Fprintf(t.w, "  %d) %s\n", i+1, protocol.Visible(c))
	}
	fmt.Fprint(t.w, "  answer: ")
	s, _ := t.line()
	return pickChoices(s, p.Choices, p.MultiSelect)
}

func pickChoices(s string, choices []string, multi bool) string {
	fields := []string{s}
	if multi {
		fields = strings.Split(s, ",")
	}
	var picked []string
	for _, f := range fields {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > len(choices) {
			return s
		}
		if !slices.Contains(picked, choices[n-1]) {
			picked = append(picked, choices[n-1])
		}
	}
	return strings.Join(picked, ", ")
}

// approval answers one approval request unless it was settled already.
func (r *oneshot) approval(ctx context.Context, p protocol.ApprovalRequestPayload) error {
	if r.settled[p.PromptID] {
		return nil
	}
	r.settled[p.PromptID] = true
	choice := r.ask.approve(p)
	_, err := r.c.RespondApproval(ctx, protocol.ApprovalRespondParams{
		SessionID: r.sid, ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Choice: choice,
	})
	if err != nil {
		fmt.Fprintf(r.e.io.Err, "hermes: approval.respond: %v\n", err)
	}
	return nil
}

// clarify answers one clarify request unless it was settled already.
func (r *oneshot) clarify(ctx context.Context, p protocol.ClarifyRequestPayload) error {
	if r.settled[p.PromptID] {
		return nil
	}
	r.settled[p.PromptID] = true
	answer := r.ask.clarify(p)
	_, err := r.c.RespondClarify(ctx, protocol.ClarifyRespondParams{
		SessionID: r.sid, ExecutionGeneration: p.ExecutionGeneration, PromptID: p.PromptID, Answer: answer,
	})
	if err != nil {
		fmt.Fprintf(r.e.io.Err, "hermes: clarify.respond: %v\n", err)
	}
	return nil
}

// delta shows streamed text, unless part of this message was lost.
func (r *oneshot) delta(text string) {
	if r.gap {
		return
	}
	r.cur += text
	if !r.o.finalOnly {
		r.write(text)
	}
}

// boundary ends the current assistant message (a tool call follows).
func (r *oneshot) boundary() {
	if !r.o.finalOnly && r.shown && !r.lastNL {
		r.write("\n")
	}
	r.cur, r.gap = "", false
}

// complete shows what the stream did not: all of it with -z, else the part
// of the final message after what was already shown.
func (r *oneshot) complete(p protocol.MessageCompletePayload) {
	r.done = &p
	if r.o.finalOnly {
		r.write(p.Text)
	} else if rest, ok := strings.CutPrefix(p.Text, r.cur); ok {
		r.write(rest)
	} else {
		r.boundary()
		r.write(p.Text)
	}
	if r.shown && !r.lastNL {
		r.write("\n")
	}
}

func (r *oneshot) write(s string) {
	if s == "" {
		return
	}
	out := s
	if r.escape {
		out = protocol.VisibleText(s) // a terminal shows the answer; a pipe gets its exact bytes
	}
	_, _ = io.WriteString(r.e.io.Out, out)
	r.shown, r.lastNL = true, strings.HasSuffix(s, "\n")
}
