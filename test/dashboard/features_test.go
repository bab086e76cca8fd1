package dashboard_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	gt "github.com/hermes-gateway/hermes/internal/gatewaytest"
	mdl "github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

// markdownAnswer is an assistant answer with every block and inline form
// the dashboard renders, HTML that must stay text, a javascript: link that
// must not become one, and a bidi override that must show escaped.
const markdownAnswer = "## Plan\n\nRun `make verify` with **bold** intent, and be *careful*.\n\n" +
	"- first\n- second\n\n1. one\n2. two\n\n```sh\ngo test ./...\n<b>not bold</b>\n```\n\n> quoted\n\n" +
	"See [the docs](https://example.com/docs) but not [bad](javascript:alert(1)).\n\n" +
	"<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">\nevil\u202etxt"

// TestDashboardFeaturesInBrowser: issue 14 item 8 in headless Chromium
// (features.mjs): favicon, automatic title in the list, usage and cost in
// the header, markdown rendered with model HTML inert, and the new-session
// dialog creating a session in a cwd with toolsets and a model.
func TestDashboardFeaturesInBrowser(t *testing.T) {
	node := requireBrowser(t)
	const title = "Markdown demo"
	f := gt.NewFixture(t, gt.Config{Streaming: true, Titles: true,
		Extra: "pricing: {test-model: {input: 2, output: 8, cached_input: 0.5}}\n"})
	answer := modeltest.Text(markdownAnswer)
	answer.Usage = &mdl.Usage{PromptTokens: 1200, CompletionTokens: 80, TotalTokens: 1280, CachedTokens: 1024}
	f.Turns.Set("Show me markdown", answer)
	f.Model.Handle(func(r *modeltest.Request) modeltest.Reply {
		if strings.HasPrefix(r.System(), "Write a short title") {
			return modeltest.Text(title)
		}
		return f.Turns.Reply(r)
	})
	d := f.Start()
	ctx := gt.Context(t, 2*time.Minute)
	v := d.View(ctx)
	cwd := t.TempDir()
	snap := gt.Create(t, v, protocol.SessionCreateParams{RequestID: gt.Ptr("dash-md"), Cwd: &cwd, Source: gt.Ptr("gui")})
	rc := gt.Submit(t, v, snap.SessionID, "md-1", "Show me markdown")
	if mc := gt.AwaitComplete(t, v, rc.AdmissionID, time.Minute); mc.Outcome != protocol.OutcomeCompleted {
		t.Fatalf("turn %q (%s)", mc.Outcome, mc.Error)
	}
	gt.Await(t, time.Minute, func() bool {
		info, err := v.SessionInfo(ctx, snap.SessionID)
		return err == nil && info.Title == title
	})

	newCwd := t.TempDir()
	link := dashboardLink(ctx, t, f.Bin, f.Home)
	shots := artifactDir(t)
	cmd := exec.CommandContext(ctx, node, "features.mjs")
	cmd.Env = append(os.Environ(), "HERMES_LINK="+link, "HERMES_SESSION_ID="+snap.SessionID, "HERMES_TITLE="+title,
		"HERMES_NEW_CWD="+newCwd, "HERMES_SCREENSHOT_DIR="+shots, "CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "FEATURES OK") {
		t.Fatalf("browser test failed: %v\n%s", err, out)
	}
	t.Logf("screenshots in %s\n%s", shots, out)

	m := regexp.MustCompile(`NEW_SESSION (\S+)`).FindSubmatch(out)
	if m == nil {
		t.Fatal("features.mjs named no new session")
	}
	info, err := v.SessionInfo(ctx, string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	var launch struct {
		Toolsets []string `json:"toolsets"`
	}
	_ = json.Unmarshal(info.LaunchRequest, &launch)
	if info.Cwd != newCwd || info.Model != "test-model" || info.Source != "gui" ||
		strings.Join(launch.Toolsets, ",") != "terminal,file" {
		t.Errorf("created session: cwd %q model %q source %q launch %s", info.Cwd, info.Model, info.Source, info.LaunchRequest)
	}
}
