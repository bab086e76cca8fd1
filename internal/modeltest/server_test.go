package modeltest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/modeltest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	res, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestModelsAndScriptExhausted(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	res, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != `{"object":"list","data":[]}` {
		t.Fatalf("models = %s", b)
	}
	s.Script(modeltest.Text("one"))
	if code, body := post(t, s.URL(), `{"model":"m","messages":[]}`); code != 200 || !strings.Contains(body, `"one"`) {
		t.Fatalf("%d %s", code, body)
	}
	if code, body := post(t, s.URL(), `{"model":"m","messages":[]}`); code != 500 || !strings.Contains(body, "no reply scripted for request 2") {
		t.Fatalf("%d %s", code, body)
	}
}

func TestRequestParsingAndHandle(t *testing.T) {
	t.Parallel()
	s := modeltest.New(t)
	s.Handle(func(r *modeltest.Request) modeltest.Reply { return modeltest.Text("echo " + r.LastUserText()) })
	c := model.New(model.Config{BaseURL: s.URL()})
	req := model.Request{Model: "m1", Tools: []model.ToolSchema{{Type: "function", Function: model.FunctionSchema{Name: "terminal"}}},
		Messages: []model.Message{{Role: "system", Content: "sys /tmp/cwd"}, {Role: "user", Content: "hello"},
			{Role: "assistant", ToolCalls: []model.ToolCall{{ID: "a", Function: model.FunctionCall{Name: "terminal", Arguments: `{"command":"pwd"}`}}}},
			{Role: "tool", ToolCallID: "a", Content: "/tmp/cwd"}}}
	resp, err := c.Complete(context.Background(), req, nil)
	if err != nil || resp.Message.Content != "echo hello" {
		t.Fatalf("%v %+v", err, resp)
	}
	reqs, err := s.AwaitRequests(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	r := reqs[0]
	if r.N != 1 || r.Model != "m1" || r.System() != "sys /tmp/cwd" || !r.HasTool("terminal") || r.Stream ||
		!r.ContainsText(`"pwd"`) || len(r.ToolResults()) != 1 || r.ToolResults()[0].ToolCallID != "a" || !r.Messages[2].Null {
		t.Fatalf("parsed %+v", r)
	}
}

// TestHeldAndNeverEndingRepliesEndOnClose: handlers blocked on a barrier or
// an endless stream return when the server closes (goleak checks).
func TestHeldAndNeverEndingRepliesEndOnClose(t *testing.T) {
	t.Parallel()
	b := modeltest.NewBarrier()
	srv := modeltest.New(t)
	srv.Script(modeltest.Reply{Hold: b}, modeltest.Reply{NeverEnd: true, Text: "x"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 2)
	c := model.New(model.Config{BaseURL: srv.URL(), MaxRetries: -1})
	for range 2 {
		go func() {
			_, err := c.Complete(ctx, model.Request{Model: "m", Stream: true}, nil)
			errc <- err
		}()
	}
	if err := b.AwaitWaiting(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AwaitRequests(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if b.Waiting() != 1 {
		t.Fatalf("waiting = %d", b.Waiting())
	}
	srv.Close()
	for range 2 {
		if err := <-errc; err == nil || errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want a connection error", err)
		}
	}
}

func TestBarrierRelease(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	b := modeltest.NewBarrier()
	srv.Script(modeltest.Reply{Hold: b, Text: "late"})
	done := make(chan string, 1)
	go func() {
		resp, err := model.New(model.Config{BaseURL: srv.URL()}).Complete(context.Background(), model.Request{Model: "m"}, nil)
		if err != nil {
			done <- err.Error()
			return
		}
		done <- resp.Message.Content
	}()
	if err := b.AwaitWaiting(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	b.Release()
	b.Release()
	if got := <-done; got != "late" {
		t.Fatalf("got %q", got)
	}
}
