package gatewaytest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// builds caches one build per tag set for the life of the test binary.
var builds struct {
	mu   sync.Mutex
	dir  string             // guarded by mu: temp dir holding every built binary
	byTS map[string]*result // guarded by mu: key = sorted tags joined by ","
}

type result struct {
	once sync.Once
	bin  string
	err  error
}

// Build builds ./cmd/hermes with the given build tags (once per test binary
// and tag set) and returns the path of the executable. A failed build fails
// t with the compiler output.
func Build(t testing.TB, tags ...string) string {
	t.Helper()
	tags = append([]string(nil), tags...)
	sort.Strings(tags)
	key := strings.Join(tags, ",")
	builds.mu.Lock()
	if builds.byTS == nil {
		builds.byTS = map[string]*result{}
	}
	r := builds.byTS[key]
	if r == nil {
		r = &result{}
		builds.byTS[key] = r
	}
	builds.mu.Unlock()
	r.once.Do(func() { r.bin, r.err = build(tags) })
	if r.err != nil {
		t.Fatalf("gatewaytest: build ./cmd/hermes (tags %q): %v", key, r.err)
	}
	return r.bin
}

func build(tags []string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	dir, err := buildDir()
	if err != nil {
		return "", err
	}
	name := "hermes"
	if len(tags) > 0 {
		name += "-" + strings.Join(tags, "-")
	}
	bin := filepath.Join(dir, name)
	args := []string{"build", "-o", bin}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command(goTool(), append(args, "./cmd/hermes")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w\n%s", err, out)
	}
	return bin, nil
}

func buildDir() (string, error) {
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.dir == "" {
		d, err := os.MkdirTemp("", "hermes-gatewaytest-")
		if err != nil {
			return "", err
		}
		builds.dir = d
	}
	return builds.dir, nil
}

// goTool is the go command that runs this test (GOROOT/bin/go), else "go".
func goTool() string {
	if root := os.Getenv("GOROOT"); root != "" {
		if p := filepath.Join(root, "bin", "go"); fileExists(p) {
			return p
		}
	}
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "/usr/local/go/bin/go"
}

// ModuleRoot is the directory of go.mod above the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if fileExists(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("gatewaytest: no go.mod above the working directory")
		}
		dir = parent
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Main runs the tests of m and removes the binaries Build made. Use it from
// TestMain: os.Exit(gatewaytest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	builds.mu.Lock()
	dir := builds.dir
	builds.mu.Unlock()
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
	return code
}
