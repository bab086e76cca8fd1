// Package hermes_test enforces the dependency rule written in
// docs/architecture.md. The rule lives only there: this test parses the
// document's package table (package → the internal packages it may import)
// and its "Clients stay clients" table, and checks `go list` against them, so
// the document and the check can never disagree. It also checks that every
// package's own doc comment states its side of the rule.
package hermes_test

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	mod     = "github.com/hermes-gateway/hermes/internal/"
	archDoc = "docs/architecture.md"
)

// rule is the dependency rule as docs/architecture.md states it.
type rule struct {
	allowed    map[string][]string // package → internal packages it may import
	anyImport  map[string]bool     // packages whose row says "any" (the composition root)
	clients    []string            // packages that never reach serverSide
	serverSide []string
}

// readRule parses the two tables of archDoc. It fails the test on any row it
// cannot read, so a typo in the document is an error, not a silent gap.
func readRule(t *testing.T) rule {
	t.Helper()
	f, err := os.Open(archDoc)
	if err != nil {
		t.Fatalf("the dependency rule lives in %s: %v", archDoc, err)
	}
	defer f.Close()
	r := rule{allowed: map[string][]string{}, anyImport: map[string]bool{}}
	var section string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			section = strings.TrimSpace(strings.TrimLeft(line, "#"))
			continue
		}
		cells, ok := tableRow(line)
		if !ok {
			continue
		}
		if err := r.addRow(section, cells); err != nil {
			t.Fatalf("%s:%d: %v", archDoc, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", archDoc, err)
	}
	if len(r.allowed) == 0 || len(r.clients) == 0 {
		t.Fatalf("%s: no package table or no client table found (sections %q and %q)", archDoc, "Packages", "Clients stay clients")
	}
	return r
}

// tableRow splits a markdown table row into its cells; header and separator
// rows are not rows.
func tableRow(line string) ([]string, bool) {
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") {
		return nil, false
	}
	cells := strings.Split(strings.Trim(line, "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	if !strings.HasPrefix(cells[0], "`") { // header ("package") or separator ("---")
		return nil, false
	}
	return cells, true
}

func (r *rule) addRow(section string, cells []string) error {
	switch section {
	case "Packages":
		if len(cells) != 3 {
			return fmt.Errorf("a package row has 3 cells (package | responsibility | may import), got %d", len(cells))
		}
		pkgs, err := names(cells[0], false)
		if err != nil {
			return err
		}
		if cells[2] == "any" {
			for _, p := range pkgs {
				r.anyImport[p] = true
			}
			return nil
		}
		imports, err := names(cells[2], true)
		if err != nil {
			return err
		}
		for _, p := range pkgs {
			if _, dup := r.allowed[p]; dup || r.anyImport[p] {
				return fmt.Errorf("package %s has two rows", p)
			}
			r.allowed[p] = imports
		}
	case "Clients stay clients":
		if len(cells) != 2 {
			return fmt.Errorf("a client row has 2 cells (client | never reaches), got %d", len(cells))
		}
		clients, err := names(cells[0], false)
		if err != nil {
			return err
		}
		server, err := names(cells[1], false)
		if err != nil {
			return err
		}
		r.clients = append(r.clients, clients...)
		r.serverSide = append(r.serverSide, server...)
	}
	return nil
}

// names reads a cell like "`a`, `b`": every item a backquoted package name;
// "—" (nothing) only where noneOK.
func names(cell string, noneOK bool) ([]string, error) {
	if cell == "—" && noneOK {
		return []string{}, nil
	}
	var out []string
	for _, item := range strings.Split(cell, ",") {
		item = strings.TrimSpace(item)
		name, ok := strings.CutPrefix(item, "`")
		name, ok2 := strings.CutSuffix(name, "`")
		if !ok || !ok2 || name == "" || strings.ContainsAny(name, "` ") {
			return nil, fmt.Errorf("cannot read %q: want backquoted package names separated by commas", cell)
		}
		out = append(out, name)
	}
	return out, nil
}

func goList(t *testing.T, format string, pkgs ...string) []string {
	t.Helper()
	args := append([]string{"list", "-f", format}, pkgs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return strings.Fields(string(out))
}

func TestArchitectureDependencyRule(t *testing.T) {
	r := readRule(t)
	seen := map[string]bool{}
	for _, line := range goList(t, `{{.ImportPath}}:{{join .Imports ","}}`, "./internal/...") {
		pkg, imports, _ := strings.Cut(line, ":")
		name := strings.TrimPrefix(pkg, mod)
		seen[name] = true
		if r.anyImport[name] {
			continue
		}
		ok, known := r.allowed[name]
		if !known {
			t.Errorf("%s has no row in the package table of %s", name, archDoc)
			continue
		}
		for _, imp := range strings.Split(imports, ",") {
			if dep, internal := strings.CutPrefix(imp, mod); internal && !slices.Contains(ok, dep) {
				t.Errorf("%s imports %s, which the dependency rule in %s does not allow", name, dep, archDoc)
			}
		}
	}
	// The document names only packages that exist.
	check := func(what, p string) {
		if !seen[p] {
			t.Errorf("%s names %s %s, which is not a package under internal/", archDoc, what, p)
		}
	}
	for p, imports := range r.allowed {
		check("package", p)
		for _, dep := range imports {
			check("import", dep)
		}
	}
	for p := range r.anyImport {
		check("package", p)
	}
	for _, p := range append(slices.Clone(r.clients), r.serverSide...) {
		check("package", p)
	}
}

func TestArchitectureClientsNeverReachTheServerSide(t *testing.T) {
	r := readRule(t)
	for _, line := range goList(t, `{{.ImportPath}}:{{join .Deps ","}}`, "./internal/...") {
		pkg, deps, _ := strings.Cut(line, ":")
		c := strings.TrimPrefix(pkg, mod)
		if !slices.Contains(r.clients, c) {
			continue
		}
		for _, d := range strings.Split(deps, ",") {
			if name, ok := strings.CutPrefix(d, mod); ok && slices.Contains(r.serverSide, name) {
				t.Errorf("%s reaches %s", c, name)
			}
		}
	}
}

// The phrases a package doc uses to state its side of the dependency rule.
const (
	mustNever = "must never import"
	noImports = "imports nothing internal"
)

// TestArchitecturePackageDocsSayWhatTheyMustNeverImport checks that the
// package comment of every package under internal/ and cmd/ says what the
// package must never import (or that it imports nothing internal), and that
// a package claiming to import nothing internal has a "—" row. The comment is
// read with go/parser from the files `go list` builds (the files go doc
// reads), with line breaks folded, so wrapping never hides the phrase.
func TestArchitecturePackageDocsSayWhatTheyMustNeverImport(t *testing.T) {
	r := readRule(t)
	for _, line := range goList(t, `{{.ImportPath}}|{{.Dir}}|{{join .GoFiles ","}}`, "./internal/...", "./cmd/...") {
		pkg, rest, _ := strings.Cut(line, "|")
		dir, files, _ := strings.Cut(rest, "|")
		var docs []string
		fset := token.NewFileSet()
		for _, name := range strings.Split(files, ",") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatalf("%s: %v", pkg, err)
			}
			if f.Doc != nil {
				docs = append(docs, f.Doc.Text())
			}
		}
		doc := strings.Join(strings.Fields(strings.Join(docs, " ")), " ")
		switch {
		case doc == "":
			t.Errorf("%s has no package doc comment (put it in doc.go)", pkg)
		case !strings.Contains(doc, mustNever) && !strings.Contains(doc, noImports):
			t.Errorf("%s: its package doc does not say what it must never import (%q or %q, consistent with %s)", pkg, mustNever, noImports, archDoc)
		}
		name, internal := strings.CutPrefix(pkg, mod)
		if !internal || !strings.Contains(doc, noImports) {
			continue
		}
		if ok, known := r.allowed[name]; r.anyImport[name] || (known && len(ok) > 0) {
			t.Errorf("%s: its package doc says it %s, but its row in %s allows internal imports", name, noImports, archDoc)
		}
	}
}
