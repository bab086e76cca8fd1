package protocol

import "testing"

func TestVisible(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, line, text string }{
		{"ls -la", "ls -la", "ls -la"},
		{"rm -rf ~\x1b[2K\recho hi", `rm -rf ~\x1b[2K\recho hi`, `rm -rf ~\x1b[2K\recho hi`},
		{"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"x\x7fy\x00z\x07", `x\x7fy\x00z\x07`, `x\x7fy\x00z\x07`},
		{"csi\u009b31m", `csi\u009b31m`, `csi\u009b31m`},
		{"invoice\u202etxt.exe", `invoice\u202etxt.exe`, `invoice\u202etxt.exe`},
		{"\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u202a", `\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u202a`, `\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u202a`},
		{"bad\xffutf8\x9b", `bad\xffutf8\x9b`, `bad\xffutf8\x9b`},
		{"héllo 世界 🙂", "héllo 世界 🙂", "héllo 世界 🙂"},
	}
	for _, tt := range tests {
		if got := Visible(tt.in); got != tt.line {
			t.Errorf("Visible(%q) = %q, want %q", tt.in, got, tt.line)
		}
		if got := VisibleText(tt.in); got != tt.text {
			t.Errorf("VisibleText(%q) = %q, want %q", tt.in, got, tt.text)
		}
		if ContainsSpoofing(Visible(tt.in)) {
			t.Errorf("Visible(%q) still spoofs", tt.in)
		}
	}
}

func FuzzVisible(f *testing.F) {
	f.Add("a\x1b[2K\r\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		if ContainsSpoofing(Visible(s)) {
			t.Fatalf("Visible(%q) = %q", s, Visible(s))
		}
		if v := VisibleText(s); !validText(v) {
			t.Fatalf("VisibleText(%q) = %q", s, v)
		}
	})
}

// validText: only \n and \t remain of the spoofing runes.
func validText(s string) bool {
	for _, r := range s {
		if Spoofing(r) && r != '\n' && r != '\t' {
			return false
		}
	}
	return true
}
