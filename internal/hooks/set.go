package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxProjectFile bounds .hermes/hooks.yaml.
const maxProjectFile = 1 << 20

// Set is the hook set of one session, frozen at its creation: config.yaml's
// hooks and the project's .hermes/hooks.yaml as they were then. Project
// hooks run only after their consent.
type Set struct {
	Config  Config `json:"config,omitempty"`
	Project Config `json:"project,omitempty"`
}

// Empty reports whether s holds no command.
func (s Set) Empty() bool { return s.Config.Empty() && s.Project.Empty() }

// Digest is the sha256 (hex) of s's canonical JSON: the receipt's
// policy.hooks.digest.
func (s Set) Digest() string {
	b, _ := json.Marshal(s)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Has reports whether any hook of s handles event.
func (s Set) Has(event string) bool {
	return len(s.Config[event]) > 0 || len(s.Project[event]) > 0
}

// LoadProject reads and validates cwd's .hermes/hooks.yaml; a missing file
// is an empty Config. Errors name the file and the key.
func LoadProject(cwd string) (Config, error) {
	path := filepath.Join(cwd, ProjectFile)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ProjectFile, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxProjectFile {
		return nil, fmt.Errorf("%s: want a regular file of at most %d bytes", ProjectFile, maxProjectFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ProjectFile, err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ProjectFile, err)
	}
	return c, nil
}
