package tools

import (
	"strconv"
	"strings"
)

// This file is a small quote-aware shell splitter for the classifier. It is
// not a shell: it only needs to find every simple command a script may run,
// with its words unquoted, its redirections, and the bodies of command and
// process substitutions, heredocs and here-strings. Whenever it is unsure it
// reports a parse error, which the classifier treats as "ask".

// subMark replaces a command or process substitution inside a word: the
// word's value is unknown until run time.
const subMark = "\x00$()"

// redirect is one redirection of a simple command.
type redirect struct {
	op     string // ">", ">>", ">|", "&>", "&>>", "<", "<<", "<<<", "<>", ">&", "<&"
	target string // unquoted target word (or heredoc delimiter)
}

// simpleCommand is one command of a pipeline or list.
type simpleCommand struct {
	words     []string
	redirects []redirect
	stdin     []string // heredoc bodies and here-strings fed to the command
	piped     bool     // stdin comes from a pipe
}

// script is the result of splitting a script.
type script struct {
	commands []simpleCommand
	subs     []string // bodies of $(…), `…`, <(…), >(…) and expanding heredocs
	err      string   // why the script could not be split completely; "" if it could
}

type heredoc struct {
	delim  string
	strip  bool // <<- strips leading tabs
	expand bool // unquoted delimiter: the body expands $(…) and `…`
	cmd    int  // index of the command in out.commands it belongs to, or -1 for cur
}

type lexer struct {
	src      string
	pos      int
	out      script
	cur      simpleCommand
	word     strings.Builder
	inWord   bool
	quoted   bool   // the current word had a quoted part
	pending  string // redirection operator waiting for its target
	piped    bool   // the next command reads a pipe
	heredocs []heredoc
}

// splitScript splits src into simple commands.
func splitScript(src string) script {
	l := &lexer{src: src}
	for l.pos < len(l.src) {
		l.step()
	}
	l.endCommand(false)
	if len(l.heredocs) > 0 {
		l.fail("unterminated heredoc")
	}
	return l.out
}

func (l *lexer) fail(why string) {
	if l.out.err == "" {
		l.out.err = why
	}
}

// step consumes one unit of input.
func (l *lexer) step() {
	c := l.src[l.pos]
	switch {
	case c == '\\':
		l.backslash()
	case c == '\'':
		l.single()
	case c == '"':
		l.double()
	case c == '$' && l.peek(1) == '\'':
		l.ansiC()
	case c == '$' && l.peek(1) == '(':
		l.substitution(l.pos + 2)
	case c == '`':
		l.backtick()
	case (c == '<' || c == '>') && l.peek(1) == '(':
		l.substitution(l.pos + 2)
	case c == ' ' || c == '\t':
		l.endWord()
		l.pos++
	case c == '#' && !l.inWord:
		l.comment()
	case c == '\n' || c == '\r':
		l.endCommand(false)
		l.pos++
		l.readHeredocs()
	case c == '>' || c == '<' || (c == '&' && l.peek(1) == '>'):
		l.redirection()
	case c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
		l.operator()
	default:
		l.word.WriteByte(c)
		l.inWord = true
		l.pos++
	}
}

func (l *lexer) peek(off int) byte {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

func (l *lexer) backslash() {
	l.inWord, l.quoted = true, true
	switch next := l.peek(1); {
	case l.pos+1 >= len(l.src):
		l.word.WriteByte('\\')
		l.pos++
	case next == '\n':
		l.pos += 2 // line continuation
	default:
		l.word.WriteByte(next)
		l.pos += 2
	}
}

func (l *lexer) single() {
	l.inWord, l.quoted = true, true
	end := strings.IndexByte(l.src[l.pos+1:], '\'')
	if end < 0 {
		l.fail("unterminated single quote")
		l.word.WriteString(l.src[l.pos+1:])
		l.pos = len(l.src)
		return
	}
	l.word.WriteString(l.src[l.pos+1 : l.pos+1+end])
	l.pos += end + 2
}

// double consumes a double-quoted string, extracting substitutions.
func (l *lexer) double() {
	l.inWord, l.quoted = true, true
	l.pos++
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '"':
			l.pos++
			return
		case c == '\\' && strings.IndexByte("$`\"\\\n", l.peek(1)) >= 0 && l.peek(1) != 0:
			if l.peek(1) != '\n' {
				l.word.WriteByte(l.peek(1))
			}
			l.pos += 2
		case c == '$' && l.peek(1) == '(':
			l.substitution(l.pos + 2)
		case c == '`':
			l.backtick()
		default:
			l.word.WriteByte(c)
			l.pos++
		}
	}
	l.fail("unterminated double quote")
}

// ansiC consumes $'…' and decodes the common escapes.
func (l *lexer) ansiC() {
	l.inWord, l.quoted = true, true
	i := l.pos + 2
	for i < len(l.src) && l.src[i] != '\'' {
		if l.src[i] == '\\' && i+1 < len(l.src) {
			n := decodeEscape(l.src[i+1:], &l.word)
			i += 1 + n
			continue
		}
		l.word.WriteByte(l.src[i])
		i++
	}
	if i >= len(l.src) {
		l.fail("unterminated $'…' quote")
	}
	l.pos = i + 1
}

// decodeEscape writes the value of the escape at the start of s (after the
// backslash) and returns how many bytes it used.
func decodeEscape(s string, w *strings.Builder) int {
	simple := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'v': 11}
	if b, ok := simple[s[0]]; ok {
		w.WriteByte(b)
		return 1
	}
	digits, base, skip := "", 8, 0
	switch {
	case s[0] == 'x':
		digits, base, skip = leading(s[1:], "0123456789abcdefABCDEF", 2), 16, 1
	case s[0] >= '0' && s[0] <= '7':
		digits = leading(s, "01234567", 3)
	}
	if digits != "" {
		v, _ := strconv.ParseUint(digits, base, 8)
		w.WriteByte(byte(v))
		return skip + len(digits)
	}
	w.WriteByte(s[0])
	return 1
}

// leading returns the longest prefix of s (at most max bytes) made of set.
func leading(s, set string, max int) string {
	n := 0
	for n < len(s) && n < max && strings.IndexByte(set, s[n]) >= 0 {
		n++
	}
	return s[:n]
}

// substitution consumes $(…), <(…) or >(…) whose body starts at start.
func (l *lexer) substitution(start int) {
	l.inWord = true
	end, ok := matchParen(l.src, start)
	if !ok {
		l.fail("unterminated substitution")
	}
	l.out.subs = append(l.out.subs, l.src[start:end])
	l.word.WriteString(subMark)
	l.pos = min(end+1, len(l.src))
}

// matchParen returns the index of the ')' closing a '(' just before start,
// skipping quotes and nested parentheses; ok is false when there is none.
func matchParen(s string, start int) (end int, ok bool) {
	depth := 1
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return len(s), false
			}
			i += j + 1
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return len(s), false
}

// backtick consumes `…`.
func (l *lexer) backtick() {
	l.inWord = true
	var body strings.Builder
	i := l.pos + 1
	for ; i < len(l.src) && l.src[i] != '`'; i++ {
		if l.src[i] == '\\' && i+1 < len(l.src) && strings.IndexByte("`$\\", l.src[i+1]) >= 0 {
			i++
		}
		body.WriteByte(l.src[i])
	}
	if i >= len(l.src) {
		l.fail("unterminated backquote")
	}
	l.out.subs = append(l.out.subs, body.String())
	l.word.WriteString(subMark)
	l.pos = i + 1
}

func (l *lexer) comment() {
	for l.pos < len(l.src) && l.src[l.pos] != '\n' && l.src[l.pos] != '\r' {
		l.pos++
	}
}

// redirectionOps are tried in order, longest first.
var redirectionOps = []string{"&>>", "&>", "<<<", "<<-", ">>", ">|", ">&", "<<", "<>", "<&", ">", "<"}

func (l *lexer) redirection() {
	if l.inWord && !l.quoted && strings.Trim(l.word.String(), "0123456789") == "" {
		l.word.Reset() // a file descriptor number: 2>file
		l.inWord = false
	}
	l.endWord()
	if l.pending != "" {
		l.fail("redirection without a target")
	}
	for _, op := range redirectionOps {
		if strings.HasPrefix(l.src[l.pos:], op) {
			l.pending = op
			l.pos += len(op)
			return
		}
	}
}

func (l *lexer) operator() {
	l.endWord()
	rest := l.src[l.pos:]
	switch {
	case strings.HasPrefix(rest, "||"), strings.HasPrefix(rest, "&&"), strings.HasPrefix(rest, ";;"):
		l.endCommand(false)
		l.pos += 2
	case strings.HasPrefix(rest, "|&"):
		l.endCommand(true)
		l.pos += 2
	case rest[0] == '|':
		l.endCommand(true)
		l.pos++
	default: // ; & ( )
		l.endCommand(false)
		l.pos++
	}
}

func (l *lexer) endWord() {
	if !l.inWord {
		return
	}
	text, quoted := l.word.String(), l.quoted
	l.word.Reset()
	l.inWord, l.quoted = false, false
	if l.pending == "" {
		l.cur.words = append(l.cur.words, text)
		return
	}
	op := l.pending
	l.pending = ""
	l.cur.redirects = append(l.cur.redirects, redirect{op: op, target: text})
	switch op {
	case "<<", "<<-":
		l.heredocs = append(l.heredocs, heredoc{delim: text, strip: op == "<<-", expand: !quoted, cmd: -1})
	case "<<<":
		l.cur.stdin = append(l.cur.stdin, text)
	}
}

// endCommand ends the current simple command; pipeNext says whether the
// next one reads its output.
func (l *lexer) endCommand(pipeNext bool) {
	l.endWord()
	if l.pending != "" {
		l.fail("redirection without a target")
		l.pending = ""
	}
	c := l.cur
	if len(c.words) == 0 && len(c.redirects) == 0 {
		l.piped = l.piped || pipeNext // "a |\n b" still pipes
		return
	}
	c.piped = l.piped
	for i := range l.heredocs {
		if l.heredocs[i].cmd < 0 {
			l.heredocs[i].cmd = len(l.out.commands)
		}
	}
	l.out.commands = append(l.out.commands, c)
	l.cur = simpleCommand{}
	l.piped = pipeNext
}

// readHeredocs reads the bodies of the heredocs opened on the line that just
// ended.
func (l *lexer) readHeredocs() {
	hs := l.heredocs
	l.heredocs = nil
	for _, h := range hs {
		body, ok := l.heredocBody(h)
		if !ok {
			l.fail("unterminated heredoc")
		}
		if h.cmd >= 0 && h.cmd < len(l.out.commands) {
			l.out.commands[h.cmd].stdin = append(l.out.commands[h.cmd].stdin, body)
		}
		if h.expand {
			l.out.subs = append(l.out.subs, expansions(body)...)
		}
	}
}

// heredocBody consumes lines up to the delimiter line.
func (l *lexer) heredocBody(h heredoc) (string, bool) {
	var body strings.Builder
	for l.pos < len(l.src) {
		line, rest, found := strings.Cut(l.src[l.pos:], "\n")
		l.pos = len(l.src) - len(rest)
		if !found {
			l.pos = len(l.src)
		}
		check := line
		if h.strip {
			check = strings.TrimLeft(line, "\t")
		}
		if check == h.delim {
			return body.String(), true
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	return body.String(), false
}

// expansions returns the bodies of the substitutions in an expanding
// heredoc body (which is otherwise data).
func expansions(body string) []string {
	l := &lexer{src: body}
	for l.pos < len(l.src) {
		switch c := l.src[l.pos]; {
		case c == '\\':
			l.pos += 2
		case c == '$' && l.peek(1) == '(':
			l.substitution(l.pos + 2)
		case c == '`':
			l.backtick()
		default:
			l.pos++
		}
	}
	return l.out.subs
}
