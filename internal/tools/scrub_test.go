package tools

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToolEnviron(t *testing.T) {
	t.Parallel()
	passthrough := []string{"GOPATH", "MY_APP_*", "HERMES_*", "*"}
	tests := []struct {
		kv   string
		keep bool
	}{
		{"PATH=/usr/bin:/bin", true},
		{"HOME=/home/u", true},
		{"USER=u", true},
		{"LOGNAME=u", true},
		{"SHELL=/bin/bash", true},
		{"LANG=C.UTF-8", true},
		{"LC_ALL=C", true},
		{"LC_CTYPE=C", true},
		{"TERM=xterm", true},
		{"TZ=UTC", true},
		{"TMPDIR=/tmp", true},
		{"GOPATH=/go", true},               // passthrough by name
		{"MY_APP_COLOR=1", true},           // passthrough by prefix
		{"GOPATHX=/go", false},             // a name is exact
		{"MY_APPX=1", false},               // a prefix is a prefix
		{"EDITOR=vim", false},              // harmless, but not on the list
		{"SLACK_WEBHOOK=https://h", false}, // the secret a deny-list misses
		{"OPENAI_API_KEY=sk-1", false},
		{"AWS_SECRET_ACCESS_KEY=x", false},
		{"SSH_AUTH_SOCK=/tmp/agent", false},
		{"HERMES_GATEWAY_INTERNAL=c", false}, // not even through HERMES_*
		{"HERMES_HOME=/h", false},
		{"hermes_lower=x", false},
		{"path=/x", false}, // names are case-sensitive
		{"malformed", false},
		{"=nameless", false},
	}
	var in, want []string
	for _, tt := range tests {
		in = append(in, tt.kv)
		if tt.keep {
			want = append(want, tt.kv)
		}
	}
	if diff := cmp.Diff(want, ToolEnviron(in, passthrough)); diff != "" {
		t.Fatalf("ToolEnviron (-want +got):\n%s", diff)
	}
}
