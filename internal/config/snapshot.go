package config

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Snapshot returns the effective configuration as a JSON-able map keyed like
// config.yaml (durations as strings such as "10s"), for the frozen policy of
// a session. Defense in depth: a string under a secret-looking key (api_key,
// secret, token, password, credential — but not the *_env names) and any
// string that looks like a literal key are replaced by nil.
func Snapshot(c Config) map[string]any {
	out, err := yaml.Marshal(c)
	if err != nil {
		panic(fmt.Sprintf("config: marshal snapshot: %v", err)) // plain data: cannot fail
	}
	var m map[string]any
	if err := yaml.Unmarshal(out, &m); err != nil {
		panic(fmt.Sprintf("config: unmarshal snapshot: %v", err))
	}
	redactMap(m)
	return m
}

var secretKeyRE = regexp.MustCompile(`(?i)(api_?key|secret|token|passw(or)?d|credential|bearer|cookie)`)

func redactMap(m map[string]any) {
	for k, v := range m {
		if _, ok := v.(string); ok && secretKeyRE.MatchString(k) && !strings.HasSuffix(k, "_env") {
			m[k] = nil
			continue
		}
		m[k] = redactValue(v)
	}
}

func redactValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		redactMap(x)
	case []any:
		for i := range x {
			x[i] = redactValue(x[i])
		}
	case string:
		if looksLikeKey(x) {
			return nil
		}
	}
	return v
}
