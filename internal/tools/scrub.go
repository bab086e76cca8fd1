package tools

import "strings"

// secretWords mark a variable name that may carry a credential, wherever
// they appear in the (upper-cased) name.
var secretWords = []string{
	"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "COOKIE", "CREDENTIAL",
	"SESSION", "TICKET", "AUTH", "PRIVATE", "DATABASE_URL", "DSN",
}

// secretPrefixes mark whole families of variables that belong to the gateway
// or to model and cloud providers.
var secretPrefixes = []string{
	"HERMES_", "OPENAI_", "ANTHROPIC_", "OPENROUTER_", "AZURE_", "AWS_",
	"GOOGLE_", "GEMINI_", "MISTRAL_", "GROQ_", "DEEPSEEK_", "XAI_",
	"COHERE_", "TOGETHER_", "HF_", "HUGGINGFACE_", "GITHUB_", "GH_",
	"GITLAB_", "NPM_", "DOCKER_", "SSH_", "GPG_", "VAULT_", "OLLAMA_",
}

// keepNames are kept even though a secret word occurs in them (AUTHOR).
var keepNames = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true,
	"TERM": true, "SHELL": true, "TMPDIR": true, "TZ": true, "PWD": true,
	"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_AUTHOR_DATE": true,
}

// ScrubbedEnv returns environ ("NAME=value" entries) without every variable
// that can carry a gateway or provider credential: names containing one of
// secretWords, names starting with one of secretPrefixes, and malformed
// entries. Ordinary variables (PATH, HOME, LANG, LC_*, TERM …) are kept in
// their order. The tool process additionally gets HERMES_TOOL_PROCESS=1 from
// the terminal tool, after scrubbing.
func ScrubbedEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || secretName(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// secretName reports whether a variable called name must not reach a tool.
func secretName(name string) bool {
	up := strings.ToUpper(name)
	if keepNames[up] {
		return false
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}
