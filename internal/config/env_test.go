package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       map[string]string
		err        string
	}{
		{"plain", "A=1\nB = two \n", map[string]string{"A": "1", "B": "two"}, ""},
		{"comments and blanks", "# c\n\n  # indented\nA=1\n", map[string]string{"A": "1"}, ""},
		{"export", "export OPENAI_API_KEY=sk-x\n", map[string]string{"OPENAI_API_KEY": "sk-x"}, ""},
		{"double quotes", `A="a b # not comment"` + "\n" + `B="x\ny\"z\\"`, map[string]string{"A": "a b # not comment", "B": "x\ny\"z\\"}, ""},
		{"single quotes", `A='a\nb' # c`, map[string]string{"A": `a\nb`}, ""},
		{"inline comment", "A=val # note\nB=a#b\n", map[string]string{"A": "val", "B": "a#b"}, ""},
		{"empty value", "A=\nB=''\n", map[string]string{"A": "", "B": ""}, ""},
		{"equals in value", "A=b=c\n", map[string]string{"A": "b=c"}, ""},
		{"crlf and bom", "\ufeffA=1\r\nB=2\r\n", map[string]string{"A": "1", "B": "2"}, ""},
		{"last wins", "A=1\nA=2\n", map[string]string{"A": "2"}, ""},
		{"no equals", "A=1\nsecret-value\n", nil, ".env: line 2: want KEY=VALUE"},
		{"bad name", "1A=x\n", nil, ".env: line 1: want KEY=VALUE"},
		{"unterminated", "A=\"open\n", nil, ".env: line 1: unterminated double quote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, EnvFileName), []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := LoadEnv(home)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %s", err, tt.err)
				}
				if strings.Contains(err.Error(), "secret-value") {
					t.Error("error echoes the line")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestLoadEnvMissing(t *testing.T) {
	t.Parallel()
	got, err := LoadEnv(t.TempDir())
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("LoadEnv = %v, %v; want empty map", got, err)
	}
}

// Not parallel: t.Setenv changes the process environment.
func TestResolveAPIKeyPrecedence(t *testing.T) {
	t.Setenv("HERMES_TEST_KEY_PROC", "from-process")
	t.Setenv("HERMES_TEST_KEY_EMPTY", "")
	dotenv := map[string]string{
		"HERMES_TEST_KEY_PROC":  "from-dotenv",
		"HERMES_TEST_KEY_EMPTY": "dotenv-fills-empty",
		"HERMES_TEST_KEY_DOT":   "only-dotenv",
	}
	c := Defaults()
	for name, want := range map[string]string{
		"HERMES_TEST_KEY_PROC":  "from-process",
		"HERMES_TEST_KEY_EMPTY": "dotenv-fills-empty",
		"HERMES_TEST_KEY_DOT":   "only-dotenv",
		"HERMES_TEST_KEY_NONE":  "",
		"":                      "",
	} {
		if got := c.ResolveAPIKey(name, dotenv).Reveal(); got != want {
			t.Errorf("ResolveAPIKey(%q) = %q, want %q", name, got, want)
		}
	}
}
