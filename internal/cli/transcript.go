package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/ids"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// showOptions are the flags of `hermes sessions show`.
type showOptions struct {
	asJSON, markdown, full bool
}

func sessionsShowCommand(e *env) *cobra.Command {
	var o showOptions
	c := e.leaf(&cobra.Command{
		Use:   "show ID",
		Short: "print a session's transcript (tool calls folded to one line each unless --full)",
		Long: "show prints the whole transcript of a session: as text (default), as markdown, or as\n" +
			"the JSON file `sessions export` writes. Text from the model, tools and other clients is\n" +
			"shown with control and bidi characters escaped.",
		Args:              exactArgs(1),
		ValidArgsFunction: e.completeSessionIDs,
	}, func(ctx context.Context, args []string) error { return sessionsShow(ctx, e, args[0], o) })
	c.Flags().BoolVar(&o.asJSON, "json", false, "print the transcript as JSON (the export format)")
	c.Flags().BoolVar(&o.markdown, "markdown", false, "print the transcript as markdown")
	c.Flags().BoolVar(&o.full, "full", false, "show tool calls and results in full instead of one line each")
	return c
}

func sessionsExportCommand(e *env) *cobra.Command {
	return e.leaf(&cobra.Command{
		Use:               "export ID",
		Short:             "write a session's transcript as JSON to stdout (for `sessions import`)",
		Example:           "  hermes sessions export local-3f1c2a9b > chat.json",
		Args:              exactArgs(1),
		ValidArgsFunction: e.completeSessionIDs,
	}, func(ctx context.Context, args []string) error {
		return sessionsShow(ctx, e, args[0], showOptions{asJSON: true})
	})
}

func sessionsShow(ctx context.Context, e *env, arg string, o showOptions) error {
	if o.asJSON && o.markdown {
		return usagef("sessions show: --json and --markdown exclude each other")
	}
	_, err := onSession(ctx, e, arg, "", o.asJSON, func(c *client.Client, sid string) (protocol.Transcript, error) {
		return fetchTranscript(ctx, c, sid)
	}, func(w io.Writer, _ string, t protocol.Transcript) error {
		if o.markdown {
			return printMarkdown(w, t, o.full)
		}
		return printTranscript(w, t, o.full)
	})
	return err
}

// fetchTranscript reads session sid's info and every message of its
// current transcript, page by page from the newest (session.messages),
// without attaching.
func fetchTranscript(ctx context.Context, c *client.Client, sid string) (protocol.Transcript, error) {
	info, err := c.SessionInfo(ctx, sid)
	if err != nil {
		return protocol.Transcript{}, callFailure("session.info", err)
	}
	t := protocol.Transcript{
		Format: protocol.TranscriptFormat, SessionID: sid, Title: info.Title, Source: info.Source,
		Model: info.Model, Cwd: info.Cwd, ExportedAt: time.Now().UTC().Format(time.RFC3339),
		Messages: []protocol.Message{},
	}
	limit := protocol.MessagesPageMax
	p := protocol.SessionMessagesParams{SessionID: sid, Limit: &limit}
	var pages [][]protocol.Message
	for {
		res, err := c.Messages(ctx, p)
		if err != nil {
			return t, callFailure("session.messages", err)
		}
		pages = append(pages, res.Messages)
		t.MessageCount = res.MessageCount
		if !res.More || len(res.Messages) == 0 {
			break
		}
		before := res.Messages[0].RowID
		p.Before = &before
	}
	for i := len(pages) - 1; i >= 0; i-- {
		t.Messages = append(t.Messages, pages[i]...)
	}
	return t, nil
}

// importOptions are the flags of `hermes sessions import`.
type importOptions struct {
	title, cwd, model, requestID string
}

func sessionsImportCommand(e *env) *cobra.Command {
	var o importOptions
	c := e.leaf(&cobra.Command{
		Use:   "import FILE",
		Short: "create a new session holding the transcript of FILE (from `sessions export`; - reads stdin)",
		Long: "import creates a new session (source cli, you its creator) whose history is the messages of\n" +
			"FILE, in one transaction: it fails whole or not at all. Only messages are imported, never\n" +
			"queued prompts or approvals. The session's cwd is --cwd, else the file's when that\n" +
			"directory exists here, else the current directory.",
		Args: exactArgs(1),
	}, func(ctx context.Context, args []string) error { return sessionsImport(ctx, e, args[0], o) })
	c.Flags().StringVar(&o.title, "title", "", "title of the new session (default: the file's)")
	c.Flags().StringVar(&o.cwd, "cwd", "", "working directory of the new session")
	c.Flags().StringVar(&o.model, "model", "", "model of the new session (default: model.default)")
	c.Flags().StringVar(&o.requestID, "request-id", "", "idempotency key: repeating it returns the same session")
	return c
}

func sessionsImport(ctx context.Context, e *env, file string, o importOptions) error {
	t, err := readTranscript(e.io.In, file)
	if err != nil {
		return err
	}
	p, skipped, err := o.params(t)
	if err != nil {
		return err
	}
	c, err := connect(ctx, e.home, false)
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := c.ImportSession(ctx, p)
	if err != nil {
		return callFailure("session.import", err)
	}
	if skipped > 0 {
		fmt.Fprintf(e.io.Err, "left out %d system/developer messages: the new session has its own\n", skipped)
	}
	fmt.Fprintf(e.io.Out, "imported %d messages as %s (cwd %s)\n", res.MessageCount, res.SessionID, protocol.Visible(*p.Cwd))
	return nil
}

// readTranscript reads and checks an export file ("-" = stdin).
func readTranscript(stdin io.Reader, file string) (protocol.Transcript, error) {
	var t protocol.Transcript
	r := stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return t, failf(exitRuntime, "import: %v", err)
		}
		defer f.Close()
		r = f
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return t, usagef("import: %s is not a transcript from `hermes sessions export`: %v", protocol.Visible(file), err)
	}
	if t.Format != protocol.TranscriptFormat {
		return t, usagef("import: %s has format %q; this hermes reads %q", protocol.Visible(file), protocol.Visible(t.Format), protocol.TranscriptFormat)
	}
	return t, nil
}

// params builds session.import from the file and the flags; it leaves out
// the file's system and developer messages and says how many.
func (o importOptions) params(t protocol.Transcript) (protocol.SessionImportParams, int, error) {
	p := protocol.SessionImportParams{RequestID: o.requestID}
	if p.RequestID == "" {
		p.RequestID = ids.New("import-", 16)
	}
	skipped := 0
	for _, m := range t.Messages {
		if m.Role == "system" || m.Role == "developer" {
			skipped++
			continue
		}
		p.Messages = append(p.Messages, protocol.ImportMessage{
			Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, ToolCalls: m.ToolCalls,
			ToolName: m.ToolName, Reasoning: m.Reasoning, Timestamp: m.Timestamp,
		})
	}
	if len(p.Messages) == 0 {
		return p, skipped, usagef("import: the transcript has no messages to import")
	}
	if title := firstNonEmpty(o.title, t.Title); title != "" {
		p.Title = &title
	}
	if o.model != "" {
		p.Model = &o.model
	}
	cwd, err := importCwd(o.cwd, t.Cwd)
	if err != nil {
		return p, skipped, err
	}
	p.Cwd = &cwd
	return p, skipped, nil
}

func importCwd(flag, fromFile string) (string, error) {
	if flag != "" {
		return chatOptions{cwd: flag}.workDir()
	}
	if fi, err := os.Stat(fromFile); fromFile != "" && err == nil && fi.IsDir() {
		return fromFile, nil
	}
	return chatOptions{}.workDir()
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// printTranscript is the text view: a header, then each message under its
// role; tool calls and results one line each unless full.
func printTranscript(w io.Writer, t protocol.Transcript, full bool) error {
	fmt.Fprintf(w, "session %s  %s\n", t.SessionID, protocol.Visible(orDash(t.Title)))
	fmt.Fprintf(w, "model %s  cwd %s  %d messages\n", protocol.Visible(t.Model), protocol.Visible(t.Cwd), t.MessageCount)
	for _, m := range t.Messages {
		switch m.Role {
		case "tool":
			fmt.Fprintf(w, "  ← %s\n", toolResultLine(m, full))
			continue
		case "user":
			fmt.Fprintf(w, "\n── you  %s\n", m.Timestamp)
		default:
			fmt.Fprintf(w, "\n── %s  %s\n", protocol.Visible(m.Role), m.Timestamp)
		}
		if text := strings.TrimRight(m.Content, "\n"); text != "" {
			fmt.Fprintln(w, protocol.VisibleText(text))
		}
		for _, call := range toolCalls(m) {
			fmt.Fprintf(w, "  → %s\n", toolCallLine(call, full))
		}
	}
	return nil
}

// printMarkdown is the markdown view of the same.
func printMarkdown(w io.Writer, t protocol.Transcript, full bool) error {
	fmt.Fprintf(w, "# %s\n\n", protocol.Visible(firstNonEmpty(t.Title, t.SessionID)))
	fmt.Fprintf(w, "- session: `%s`\n- model: `%s`\n- cwd: `%s`\n- messages: %d\n",
		t.SessionID, protocol.Visible(t.Model), protocol.Visible(t.Cwd), t.MessageCount)
	for _, m := range t.Messages {
		if m.Role == "tool" {
			if full {
				fmt.Fprintf(w, "\n<details><summary>result of %s</summary>\n\n```\n%s\n```\n\n</details>\n",
					protocol.Visible(orDash(m.ToolName)), protocol.VisibleText(strings.ReplaceAll(m.Content, "```", "`\u200b``")))
			} else {
				fmt.Fprintf(w, "- ← %s\n", toolResultLine(m, false))
			}
			continue
		}
		heading := map[string]string{"user": "You", "assistant": "Assistant"}[m.Role]
		fmt.Fprintf(w, "\n## %s\n\n", firstNonEmpty(heading, protocol.Visible(m.Role)))
		if text := strings.TrimSpace(m.Content); text != "" {
			fmt.Fprintf(w, "%s\n", protocol.VisibleText(text))
		}
		if calls := toolCalls(m); len(calls) > 0 {
			fmt.Fprintln(w)
			for _, call := range calls {
				fmt.Fprintf(w, "- → %s\n", toolCallLine(call, full))
			}
		}
	}
	return nil
}

// wireCall is one element of a message's tool_calls.
type wireCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func toolCalls(m protocol.Message) []wireCall {
	var calls []wireCall
	if len(m.ToolCalls) > 0 {
		_ = json.Unmarshal(m.ToolCalls, &calls)
	}
	return calls
}

// toolCallLine is "name: summary" (full: name and the whole arguments),
// escaped for display.
func toolCallLine(c wireCall, full bool) string {
	if full {
		return protocol.Visible(c.Function.Name) + " " + protocol.Visible(c.Function.Arguments)
	}
	return protocol.Visible(c.Function.Name) + ": " + protocol.Visible(toolSummary(c.Function.Name, json.RawMessage(c.Function.Arguments)))
}

// toolResultLine is a tool result: its first line and how much follows,
// or (full) all of it.
func toolResultLine(m protocol.Message, full bool) string {
	name := protocol.Visible(orDash(m.ToolName))
	if full {
		return name + ":\n" + indent(protocol.VisibleText(strings.TrimRight(m.Content, "\n")), "      ")
	}
	lines := strings.Count(strings.TrimRight(m.Content, "\n"), "\n") + 1
	first, _, _ := strings.Cut(strings.TrimSpace(m.Content), "\n")
	s := name + ": " + protocol.Visible(oneLine(first, 100))
	if lines > 1 {
		s += fmt.Sprintf(" (%d lines)", lines)
	}
	return s
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
