package model_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/modeltest"
)

// TestErrorTextIsPublicSafe: an error's text may reach a client (the
// message.complete error, a compression failure), so it never carries the
// endpoint URL or upstream message text.
func TestErrorTextIsPublicSafe(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(t)
	body := `{"error":{"message":"see https://user:pw@billing.example/acct?token=abc","type":"invalid <b>","code":"rate_limit_exceeded"}}`
	srv.Script(modeltest.Reply{Status: 400, ErrorBody: body})
	_, err := newClient(srv.URL(), nil).Complete(context.Background(), userReq(false), nil)
	var ae *model.APIError
	if !errors.As(err, &ae) || ae.Message == "" {
		t.Fatalf("err = %v", err)
	}
	if got := err.Error(); got != "model: HTTP 400 (rate_limit_exceeded)" {
		t.Fatalf("api error text %q", got)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	_ = ln.Close() // nothing listens: connection refused
	_, err = newClient(url, func(c *model.Config) { c.MaxRetries = 0 }).Complete(context.Background(), userReq(false), nil)
	if !errors.Is(err, model.ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if s := err.Error(); strings.Contains(s, ln.Addr().String()) || strings.Contains(s, "http") {
		t.Fatalf("transport error text names the endpoint: %q", s)
	}
}
