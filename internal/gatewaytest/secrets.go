package gatewaytest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// NoSecretAtRest asserts I8: none of secrets appears in the bytes of any
// file under home (state.db, -wal, -shm, logs, config) or in the daemon
// output files next to it. The profile's .env, where a key is meant to
// be, is skipped. Call it after the daemon exited.
func NoSecretAtRest(t testing.TB, home string, secrets ...string) {
	t.Helper()
	root := filepath.Dir(home)
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !e.Type().IsRegular() || e.Name() == ".env" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if s != "" && bytes.Contains(b, []byte(s)) {
				t.Errorf("I8: secret %.6s… found at rest in %s", s, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
