package doctor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/sandbox"
)

const (
	keyEnv  = "HGW_DOCTOR_TEST_KEY"
	goodKey = "doctor-test-key-0123"
)

// setup is one profile home and what Run gets for it.
type setup struct {
	home    string
	model   string // base_url of the fake model
	extra   string // config.yaml lines appended
	listen  string // gateway.listen; "" = 127.0.0.1:0
	opts    Options
	models  *int // GET /models requests seen
	noList  bool // the endpoint has no GET /models (404)
	chatReq *int
}

// fakeEndpoint is modeltest's fake model behind a bearer-key check.
func (s *setup) fakeEndpoint(t *testing.T) {
	t.Helper()
	fake, h := modeltest.NewHandler()
	t.Cleanup(fake.Close)
	fake.Handle(func(*modeltest.Request) modeltest.Reply { return modeltest.Text("p") })
	models, chats := 0, 0
	s.models, s.chatReq = &models, &chats
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+goodKey {
			http.Error(w, `{"error":{"message":"Incorrect API key provided: `+r.Header.Get("Authorization")+`"}}`, http.StatusUnauthorized)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/models") {
			models++
			if s.noList {
				http.NotFound(w, r)
				return
			}
		} else {
			chats++
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.model = srv.URL + "/v1"
}

func newSetup(t *testing.T) *setup {
	t.Helper()
	s := &setup{home: filepath.Join(t.TempDir(), "home")}
	if err := os.Mkdir(s.home, 0o700); err != nil {
		t.Fatal(err)
	}
	s.fakeEndpoint(t)
	s.opts = Options{
		Home:    s.home,
		Version: "v9.9.9-test",
		SandboxStatus: func(m sandbox.Mode) sandbox.Status {
			return sandbox.Status{Mode: m, Level: sandbox.LevelFull, LandlockABI: 4}
		},
		LookPath: exec.LookPath,
		Getenv:   func(string) string { return "" },
	}
	s.write(t, ".env", keyEnv+"="+goodKey+"\n")
	return s
}

func (s *setup) write(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.home, name), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (s *setup) run(t *testing.T) []Check {
	t.Helper()
	cfg := fmt.Sprintf("model:\n  default: test-model\n  base_url: %q\n  api_key_env: %s\n"+
		"gateway: {listen: %q}\ncheckpoints: {enabled: true}\n%s", s.model, keyEnv, cmp.Or(s.listen, "127.0.0.1:0"), s.extra)
	if _, err := os.Stat(filepath.Join(s.home, "config.yaml")); errors.Is(err, os.ErrNotExist) {
		s.write(t, "config.yaml", cfg)
	}
	return Run(context.Background(), s.opts)
}

func byName(checks []Check) map[string]Check {
	m := map[string]Check{}
	for _, c := range checks {
		m[c.Name] = c
	}
	return m
}

func TestHealthyHome(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed here")
	}
	t.Parallel()
	s := newSetup(t)
	checks := s.run(t)
	want := []string{CheckVersion, CheckHome, CheckConfig, CheckModel, CheckSandbox, CheckDatabase, CheckListener, CheckDisk, CheckGit}
	if len(checks) != len(want) {
		t.Fatalf("checks %+v, want %v", checks, want)
	}
	for i, c := range checks {
		if c.Name != want[i] || !c.OK || c.Skipped || c.Fix != "" || c.Detail == "" || strings.Contains(c.Detail, "\n") {
			t.Errorf("check %d: %+v, want %s passing with a one-line detail", i, c, want[i])
		}
	}
	if !AllOK(checks) {
		t.Error("AllOK false for a healthy home")
	}
	if *s.models != 1 || *s.chatReq != 0 {
		t.Errorf("model requests: %d GET /models, %d completions; want one list", *s.models, *s.chatReq)
	}
	if c := byName(checks)[CheckVersion]; !strings.Contains(c.Detail, "v9.9.9-test") {
		t.Errorf("version %q", c.Detail)
	}
	b, _ := json.Marshal(checks)
	if strings.Contains(string(b), goodKey) {
		t.Error("the key appears in the report")
	}
}

func TestOfflineSkipsModel(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	s.opts.Offline = true
	c := byName(s.run(t))[CheckModel]
	if !c.OK || !c.Skipped || *s.models+*s.chatReq != 0 {
		t.Errorf("offline model check %+v after %d requests, want skipped and none", c, *s.models+*s.chatReq)
	}
}

func TestCompletionFallback(t *testing.T) {
	t.Parallel()
	s := newSetup(t)
	s.noList = true
	c := byName(s.run(t))[CheckModel]
	if !c.OK || *s.chatReq != 1 {
		t.Errorf("endpoint without /models: %+v, %d completions; want a passing 1-token completion", c, *s.chatReq)
	}
}

// TestEachCheckFailsAlone breaks one thing at a time in a healthy home and
// expects exactly that check to fail, with a fix.
func TestEachCheckFailsAlone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed here")
	}
	t.Parallel()
	cases := []struct {
		check string
		brk   func(t *testing.T, s *setup)
	}{
		{CheckHome, func(t *testing.T, s *setup) { chmod(t, s.home, 0o770) }},
		{CheckHome, func(t *testing.T, s *setup) { chmod(t, filepath.Join(s.home, ".env"), 0o644) }},
		{CheckConfig, func(t *testing.T, s *setup) { s.write(t, "config.yaml", "model: [not, a, map]\n") }},
		{CheckModel, func(t *testing.T, s *setup) { s.write(t, ".env", keyEnv+"=wrong-key-0000\n") }},
		{CheckModel, func(t *testing.T, s *setup) { s.write(t, ".env", "") }},
		{CheckModel, func(t *testing.T, s *setup) { s.model = "http://127.0.0.1:1/v1" }},
		{CheckSandbox, func(t *testing.T, s *setup) {
			s.extra = "sandbox: {mode: strict}\n"
			s.opts.SandboxStatus = func(m sandbox.Mode) sandbox.Status {
				return sandbox.Status{Mode: m, Level: sandbox.LevelNone, Detail: "user namespaces: EPERM"}
			}
		}},
		{CheckDatabase, func(t *testing.T, s *setup) { s.write(t, "state.db", strings.Repeat("not a database ", 300)) }},
		{CheckListener, func(t *testing.T, s *setup) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ln.Close() })
			s.listen = ln.Addr().String()
		}},
		{CheckDisk, func(t *testing.T, s *setup) { s.opts.MinFreeBytes = 1 << 62 }},
		{CheckGit, func(t *testing.T, s *setup) {
			s.opts.LookPath = func(string) (string, error) { return "", exec.ErrNotFound }
		}},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d-%s", i, c.check), func(t *testing.T) {
			t.Parallel()
			s := newSetup(t)
			c.brk(t, s)
			checks := s.run(t)
			if AllOK(checks) {
				t.Fatalf("AllOK true with a broken %s: %+v", c.check, checks)
			}
			for _, got := range checks {
				switch {
				case got.Name == c.check && (got.OK || got.Fix == "" || strings.Contains(got.Detail+got.Fix, "\n")):
					t.Errorf("%s: %+v, want a one-line failure with a fix", c.check, got)
				case got.Name != c.check && !got.OK:
					t.Errorf("%s failed too when only %s was broken: %+v", got.Name, c.check, got)
				}
				if strings.Contains(got.Detail+got.Fix, goodKey) || strings.Contains(got.Detail+got.Fix, "wrong-key") {
					t.Errorf("%s prints a key: %+v", got.Name, got)
				}
			}
		})
	}
}

func chmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}
