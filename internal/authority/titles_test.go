package authority

import (
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/session"
)

func TestCleanTitle(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 30)
	cases := map[string]string{
		"Fix the flaky build":                         "Fix the flaky build",
		`"Fix the flaky build."`:                      "Fix the flaky build",
		"Title: **Refactor the parser**\nmore text":   "Refactor the parser",
		"<think>hmm, a title</think>\n\n# Debug CI\n": "Debug CI",
		"Evil\u202etxt.exe\x1b[31m":                   "Evil txt.exe [31m",
		"\n\n  \t":                                    "",
		"\x1b\x07\u2066":                              "",
		"<think>never closed":                         "",
		"bad \xff utf8":                               "bad utf8",
		long:                                          strings.TrimSpace(strings.Repeat("word ", 11)) + " word",
		strings.Repeat("x", 80):                       strings.Repeat("x", 60),
		"«Plan the migration»":                        "Plan the migration",
		"title: title":                                "title",
	}
	for in, want := range cases {
		got := cleanTitle(in)
		if got != want {
			t.Errorf("cleanTitle(%q) = %q, want %q", in, got, want)
		}
		if got != "" && session.CheckTitle(got) != nil {
			t.Errorf("cleanTitle(%q) = %q fails CheckTitle", in, got)
		}
	}
}

func FuzzCleanTitle(f *testing.F) {
	f.Add("Title: \"x\u202e\"")
	f.Fuzz(func(t *testing.T, s string) {
		if got := cleanTitle(s); got != "" && session.CheckTitle(got) != nil {
			t.Fatalf("cleanTitle(%q) = %q fails CheckTitle", s, got)
		}
	})
}
