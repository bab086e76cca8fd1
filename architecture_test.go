// Package hermes_test enforces the dependency rule of docs/architecture.md:
// every internal package may import only the internal packages listed for
// it, and the clients never reach the server side, not even transitively.
package hermes_test

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/hermes-gateway/hermes/internal/"

// allowed lists, for each package, the internal packages it may import
// directly. A package missing here may import nothing internal.
var allowed = map[string][]string{
	"faults":      {},
	"protocol":    {},
	"queue":       {},
	"config":      {},
	"session":     {"protocol"},
	"rpc":         {"protocol"},
	"auth":        {"protocol"},
	"control":     {"auth", "protocol"},
	"model":       {"faults"},
	"tools":       {"faults"},
	"store":       {"queue", "faults"},
	"events":      {"protocol"},
	"agent":       {"model", "tools", "faults"},
	"modeltest":   {"model"},
	"oidctest":    {},
	"authority":   {"store", "events", "agent", "model", "tools", "session", "queue", "auth", "protocol", "faults", "worker"},
	"server":      {"rpc", "protocol", "authority", "auth", "events"},
	"dashboard":   {"auth", "protocol", "server"},
	"daemon":      {"auth", "authority", "config", "control", "events", "faults", "server", "store", "session", "protocol", "tools", "dashboard"},
	"client":      {"rpc", "protocol"},
	"tui":         {"client", "protocol"},
	"acp":         {"client", "protocol"},
	"gatewaytest": {"client", "control", "protocol", "modeltest", "auth", "faults", "store", "rpc"},
	"worker":      {"agent", "model", "tools", "protocol"},
}

// clientSide packages must not reach these, even transitively.
var serverSide = []string{"store", "authority", "server", "daemon", "events", "agent", "tools"}

func goList(t *testing.T, format string, pkgs ...string) []string {
	t.Helper()
	args := append([]string{"list", "-f", format}, pkgs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return strings.Fields(string(out))
}

func TestDependencyRule(t *testing.T) {
	for _, line := range goList(t, `{{.ImportPath}}:{{join .Imports ","}}`, "./internal/...") {
		pkg, imports, _ := strings.Cut(line, ":")
		name := strings.TrimPrefix(pkg, mod)
		ok, known := allowed[name]
		if !known && name != "cli" {
			t.Errorf("%s is not in the dependency table of architecture_test.go", name)
			continue
		}
		for _, imp := range strings.Split(imports, ",") {
			dep, internal := strings.CutPrefix(imp, mod)
			if !internal || name == "cli" {
				continue
			}
			if !contains(ok, dep) {
				t.Errorf("%s imports %s, which the dependency rule forbids", name, dep)
			}
		}
	}
}

func TestClientsNeverReachTheServerSide(t *testing.T) {
	for _, line := range goList(t, `{{.ImportPath}}:{{join .Deps ","}}`, "./internal/...") {
		pkg, deps, _ := strings.Cut(line, ":")
		c := strings.TrimPrefix(pkg, mod)
		if c != "client" && c != "tui" && c != "acp" {
			continue
		}
		for _, d := range strings.Split(deps, ",") {
			if name, ok := strings.CutPrefix(d, mod); ok && contains(serverSide, name) {
				t.Errorf("%s reaches %s", c, name)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
