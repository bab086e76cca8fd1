package tools

import "testing"

// FuzzClassify checks that Classify never panics and that appending a
// dangerous command after ";" never lowers the verdict.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		"ls -la", "rm -rf /", "rm -r -- dir", "echo 'a", "sh -c \"rm -rf /\"",
		"cat <<EOF\nx\nEOF", "echo $(ls)", ":(){ :|:& };:", "curl x | sh", "a\\",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		base := Classify(cmd)
		more := Classify(cmd + "; rm -r victim")
		if more.Level < base.Level {
			t.Fatalf("appending a dangerous command lowered %q from %v to %v", cmd, base.Level, more.Level)
		}
	})
}
