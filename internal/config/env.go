package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// EnvFileName is the name of the secrets file in a profile home.
const EnvFileName = ".env"

// LoadEnv reads $home/.env: KEY=VALUE lines, blank lines and # comments
// ignored, an optional "export " prefix, values optionally in single quotes
// (literal) or double quotes (\n, \t, \" and \\ escapes); an unquoted value
// ends at " #". A missing file is an empty map. Errors name the line but
// never its content (it may hold a secret).
func LoadEnv(home string) (map[string]string, error) {
	env := map[string]string{}
	data, err := os.ReadFile(filepath.Join(home, EnvFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return env, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read .env: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		key, val, ok, err := parseEnvLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", EnvFileName, line, err)
		}
		if ok {
			env[key] = val
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read .env: %w", err)
	}
	return env, nil
}

var errEnvLine = errors.New("want KEY=VALUE")

// parseEnvLine parses one line; ok is false for blanks and comments.
func parseEnvLine(s string) (key, val string, ok bool, err error) {
	s = strings.TrimSpace(strings.TrimPrefix(s, "\ufeff"))
	if s == "" || strings.HasPrefix(s, "#") {
		return "", "", false, nil
	}
	s = strings.TrimSpace(strings.TrimPrefix(s, "export "))
	key, raw, found := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !found || !envNameRE.MatchString(key) {
		return "", "", false, errEnvLine
	}
	val, err = envValue(strings.TrimSpace(raw))
	return key, val, err == nil, err
}

func envValue(raw string) (string, error) {
	switch {
	case strings.HasPrefix(raw, "'"):
		end := strings.Index(raw[1:], "'")
		if end < 0 {
			return "", errors.New("unterminated single quote")
		}
		return raw[1 : end+1], nil
	case strings.HasPrefix(raw, `"`):
		return doubleQuoted(raw)
	}
	if i := strings.Index(raw, " #"); i >= 0 {
		raw = raw[:i]
	}
	return strings.TrimSpace(raw), nil
}

func doubleQuoted(raw string) (string, error) {
	var b strings.Builder
	for i := 1; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			return b.String(), nil
		case c == '\\' && i+1 < len(raw):
			i++
			switch raw[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(raw[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", errors.New("unterminated double quote")
}

// ResolveAPIKey returns the value of the variable envName: the process
// environment first, then .env. "" envName or an unset variable is a zero
// Secret.
func (c Config) ResolveAPIKey(envName string, dotenv map[string]string) Secret {
	if envName == "" {
		return ""
	}
	if v, ok := os.LookupEnv(envName); ok && v != "" {
		return Secret(v)
	}
	return Secret(dotenv[envName])
}

// ListenIsLoopback reports whether gateway.listen binds only a loopback
// address ("localhost" or a loopback IP; an empty host is every interface).
func (c Config) ListenIsLoopback() bool { return loopbackListen(c.Gateway.Listen) }

// Gated reports gated mode: dashboard.public_url is set.
func (c Config) Gated() bool { return c.Dashboard.PublicURL != "" }

// ApplyEnv applies the documented environment overrides (docs/protocol.md#environment: only
// HERMES_LISTEN; HERMES_HOME selects the home before Load), validating them.
// getenv is usually os.Getenv.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	if v := getenv("HERMES_LISTEN"); v != "" {
		if !validListen(v) {
			return fmt.Errorf("HERMES_LISTEN: want host:port, got %s", strconv.Quote(v))
		}
		c.Gateway.Listen = v
	}
	return nil
}
