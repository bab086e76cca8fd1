package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAllowExcept(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"a/x", "a/y/deep", "b", "c/z"} {
		mkdir(t, filepath.Join(root, d))
	}
	writeFile(t, filepath.Join(root, "f"), "")
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	j := func(p string) string { return filepath.Join(root, p) }
	for _, tc := range []struct {
		name   string
		except []string
		want   []string
	}{
		{"nothing excepted", nil, []string{root}},
		{"outside root", []string{"/elsewhere", root + "x/a"}, []string{root}},
		{"root itself", []string{root}, nil},
		{"one deep", []string{j("a/y")}, []string{j("a/x"), j("b"), j("c"), j("f")}},
		{"two", []string{j("a/x"), j("c/z")}, []string{j("a/y"), j("b"), j("f")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, allowExcept(root, tc.except)); diff != "" {
				t.Errorf("allowExcept (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSeccompFilterAssembles(t *testing.T) {
	t.Parallel()
	ins, err := seccompFilter()
	if err != nil || len(ins) < len(deniedCommon) {
		t.Fatalf("%d instructions, %v", len(ins), err)
	}
}
