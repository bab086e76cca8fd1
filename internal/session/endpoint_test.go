package session

import (
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

func TestSameEndpoint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		same bool
	}{
		{"http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1/", true},
		{"HTTPS://API.Example.com:443/v1", "https://api.example.com/v1", true},
		{"http://localhost:80/v1//", "http://LOCALHOST/v1", true},
		{"http://[::1]:8080/v1", "http://[::1]:8080/v1/", true},
		{"https://api.example.com/", "https://api.example.com", true},
		{"http://127.0.0.1:11434/v1", "http://127.0.0.1:11435/v1", false},
		{"http://api.example.com/v1", "https://api.example.com/v1", false},
		{"https://api.example.com/v1", "https://api.example.com/V1", false}, // paths keep their case
		{"https://api.example.com:8443/v1", "https://api.example.com/v1", false},
		{"https://api.example.com.evil/v1", "https://api.example.com/v1", false},
		{"", "", false},
		{"not a url", "not a url", false},
	}
	for _, tt := range tests {
		if got := SameEndpoint(tt.a, tt.b); got != tt.same {
			t.Errorf("SameEndpoint(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}

// TestKeyEndpoint: a profile key goes only to the base_url it was configured
// with; any other base_url records no key endpoint.
func TestKeyEndpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct{ in, want string }{
		{`{}`, KeyEndpointModel},
		{`{"base_url":"http://127.0.0.1:11434/v1/"}`, KeyEndpointModel},
		{`{"base_url":"http://localhost:11434/v1"}`, KeyEndpointNone}, // another host name is another endpoint
		{`{"base_url":"http://127.0.0.1:9999/v1"}`, KeyEndpointNone},
		{`{"provider":"openrouter"}`, "provider:openrouter"},
		{`{"base_url":"https://openrouter.ai/api/v1"}`, "provider:openrouter"},
		{`{"provider":"openrouter","base_url":"https://proxy.example/v1"}`, KeyEndpointNone},
		{`{"provider":"openrouter","base_url":"http://127.0.0.1:11434/v1"}`, KeyEndpointModel},
		{`{"ignore_user_config":true,"model":"m","base_url":"http://127.0.0.1:11434/v1"}`, KeyEndpointNone},
	}
	for _, tt := range tests {
		l, err := Build(params(t, tt.in), "uid:1000", e.d, now)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if got := l.Receipt.Policy.KeyEndpoint; got != tt.want {
			t.Errorf("%s: key_endpoint %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestProfileKeyName: the recorded endpoint is re-checked against the
// current config before a key is looked up.
func TestProfileKeyName(t *testing.T) {
	t.Parallel()
	d := Defaults{BaseURL: "http://127.0.0.1:11434/v1", Providers: map[string]string{"or": "https://openrouter.ai/api/v1"}}
	moved := Defaults{BaseURL: "http://127.0.0.1:2/v1", Providers: map[string]string{"or": "https://other.example/v1"}}
	model := Policy{BaseURL: "http://127.0.0.1:11434/v1", KeyEndpoint: KeyEndpointModel}
	or := Policy{BaseURL: "https://openrouter.ai/api/v1", KeyEndpoint: "provider:or"}
	tests := []struct {
		name     string
		pol      Policy
		d        Defaults
		wantName string
		wantOK   bool
	}{
		{"model", model, d, "", true},
		{"provider", or, d, "or", true},
		{"none", Policy{BaseURL: model.BaseURL, KeyEndpoint: KeyEndpointNone}, d, "", false},
		{"legacy receipt, configured url", Policy{BaseURL: or.BaseURL, Provider: "or"}, d, "or", true},
		{"legacy receipt, other url", Policy{BaseURL: "http://127.0.0.1:9/v1"}, d, "", false},
		{"model url changed", model, moved, "", false},
		{"provider url changed", or, moved, "or", false},
		{"provider removed", or, Defaults{BaseURL: d.BaseURL}, "or", false},
		{"ignore_user_config", Policy{BaseURL: model.BaseURL, KeyEndpoint: KeyEndpointModel, IgnoreUserConfig: true}, d, "", false},
	}
	for _, tt := range tests {
		name, ok := ProfileKeyName(tt.pol, tt.d)
		if ok != tt.wantOK || (ok && name != tt.wantName) {
			t.Errorf("%s: ProfileKeyName = %q, %v; want %q, %v", tt.name, name, ok, tt.wantName, tt.wantOK)
		}
	}
}

// TestBaseURLPlainHTTP: http:// is for loopback hosts unless the daemon
// allows insecure http; the error names the rule.
func TestBaseURLPlainHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, u := range []string{"http://127.0.0.1:1/v1", "http://127.9.9.9/v1", "http://[::1]/v1", "http://localhost:8080/v1", "https://api.example/v1"} {
		if _, err := Build(params(t, `{"base_url":"`+u+`"}`), "uid:1000", e.d, now); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range []string{"http://api.example/v1", "http://10.0.0.1:8080/v1", "http://[::2]/v1", "http://localhost.evil/v1", "http://0.0.0.0/v1"} {
		_, err := Build(params(t, `{"base_url":"`+u+`"}`), "uid:1000", e.d, now)
		wantErr(t, err, protocol.ReasonInvalidParams, "base_url: http:// is allowed only for loopback hosts")
	}
	insecure := e.d
	insecure.AllowInsecureHTTP = true
	if _, err := Build(params(t, `{"base_url":"http://api.example/v1"}`), "uid:1000", insecure, now); err != nil {
		t.Errorf("allow_insecure_http: %v", err)
	}
}
