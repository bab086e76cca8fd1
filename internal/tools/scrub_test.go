package tools

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScrubbedEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kv   string
		keep bool
	}{
		{"PATH=/usr/bin:/bin", true},
		{"HOME=/home/u", true},
		{"USER=u", true},
		{"LANG=C.UTF-8", true},
		{"LC_ALL=C", true},
		{"TERM=xterm", true},
		{"SHELL=/bin/bash", true},
		{"TMPDIR=/tmp", true},
		{"TZ=UTC", true},
		{"GOPATH=/go", true},
		{"EDITOR=vim", true},
		{"GIT_AUTHOR_NAME=u", true},
		{"OPENAI_API_KEY=sk-1", false},
		{"OPENAI_BASE_URL=http://x", false},
		{"ANTHROPIC_API_KEY=x", false},
		{"OPENROUTER_API_KEY=x", false},
		{"HERMES_GATEWAY_INTERNAL=c", false},
		{"HERMES_HOME=/h", false},
		{"HERMES_API_KEY=x", false},
		{"hermes_lower=x", false},
		{"AWS_ACCESS_KEY_ID=x", false},
		{"AWS_REGION=eu", false},
		{"GITHUB_TOKEN=x", false},
		{"GH_TOKEN=x", false},
		{"MY_SERVICE_TOKEN=x", false},
		{"db_password=x", false},
		{"PGPASSWORD=x", false},
		{"SMTP_PASSWD=x", false},
		{"CLIENT_SECRET=x", false},
		{"SESSION_COOKIE=x", false},
		{"KRB5_TICKET=x", false},
		{"HTTP_AUTH=x", false},
		{"GOOGLE_APPLICATION_CREDENTIALS=/x", false},
		{"api_key=x", false},
		{"DATABASE_URL=postgres://u:p@h/db", false},
		{"SSH_AUTH_SOCK=/tmp/agent", false},
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
	if diff := cmp.Diff(want, ScrubbedEnv(in)); diff != "" {
		t.Fatalf("ScrubbedEnv (-want +got):\n%s", diff)
	}
}
