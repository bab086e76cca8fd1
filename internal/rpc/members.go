package rpc

import (
	"encoding/json"
	"strings"
)

// memberNames are the envelope members, as encoding/json matches them
// (case-insensitively) into envelope.
var memberNames = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// membersUnique reports whether the top-level object data (already
// validated by json.Unmarshal) names each envelope member at most once and
// exactly as spelled. encoding/json would silently keep the last of two
// "id"s, or fold "ID" into "id", so the frame the handler sees could differ
// from the one a logging proxy or the peer's own parser sees; such a frame
// is refused like a duplicate key in params. Unknown members are ignored.
// It is one pass over the bytes that skips values without decoding them.
func membersUnique(data []byte) bool {
	var seen [len(memberNames)]bool
	i := skipSpace(data, 0) + 1 // past '{'
	for {
		i = skipSpace(data, i)
		if i >= len(data) || data[i] == '}' {
			return true
		}
		if data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		end := stringEnd(data, i)
		if n, ok := memberIndex(data[i:end]); n >= 0 {
			if !ok || seen[n] {
				return false
			}
			seen[n] = true
		}
		i = skipSpace(data, end) + 1 // past ':'
		i = valueEnd(data, skipSpace(data, i))
	}
}

// memberIndex returns the envelope member a quoted key folds to (-1 for
// none) and whether it is spelled exactly.
func memberIndex(quoted []byte) (int, bool) {
	key := string(quoted[1 : len(quoted)-1])
	if strings.IndexByte(key, '\\') >= 0 {
		if json.Unmarshal(quoted, &key) != nil {
			return -1, false
		}
	}
	for n, name := range memberNames {
		if strings.EqualFold(key, name) {
			return n, key == name
		}
	}
	return -1, false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at data[i].
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// valueEnd returns the index just past the value starting at data[i].
func valueEnd(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; {
		case c == '"':
			i = stringEnd(data, i)
			if depth == 0 {
				return i
			}
			continue
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return i // the end of the enclosing object
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			return i
		}
		i++
	}
	return i
}
