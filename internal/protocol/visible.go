package protocol

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible escaping (issue 10 item 5). Text a client shows that came from the
// model, a tool or another client (commands, paths, titles, tool output)
// must not be able to drive the terminal or reorder what the user reads. It
// lives here, stdlib-only, because every client surface (cli, tui, acp)
// may import protocol.

// Spoofing reports whether r is a rune a display interprets instead of
// showing: C0 controls (including ESC, CR, BS), DEL, C1 controls (U+0080–
// U+009F, e.g. the 8-bit CSI U+009B), and the bidi marks, embeddings,
// overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069).
func Spoofing(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// ContainsSpoofing reports whether s holds a Spoofing rune or invalid UTF-8.
func ContainsSpoofing(s string) bool {
	return !utf8.ValidString(s) || strings.IndexFunc(s, Spoofing) >= 0
}

// Visible returns s for one-line display: every Spoofing rune, \n and \t
// included, is written as an escape (`\x1b`, `\n`, `\u202e`), and each byte
// of invalid UTF-8 as `\xNN`. Everything else is unchanged, so a clean
// string is returned as is.
func Visible(s string) string { return escape(s, false) }

// VisibleText is Visible for multi-line text (tool output, a message): \n
// and \t are kept, every other Spoofing rune is escaped.
func VisibleText(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	if !ContainsSpoofing(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && Spoofing(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case Spoofing(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
