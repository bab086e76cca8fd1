package authority

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/protocol"
	"github.com/hermes-gateway/hermes/internal/session"
	"github.com/hermes-gateway/hermes/internal/store"
)

// Automatic titles (issue 14, config.yaml titles.auto). After a turn of an
// untitled session completes, the executor asks the session's model for a
// title in one small request, before the session's next turn starts (so
// the model sees requests in a fixed order). A title is journaled like a
// rename (the title, a revision bump and session.info) but only if the
// session is still untitled when it commits. Any failure leaves the title
// empty and is only logged: the turn has settled already.

const (
	titleTimeout  = 30 * time.Second
	maxAutoTitle  = 60   // runes
	maxTitleInput = 2000 // runes of the prompt and of the answer the model sees
	titleMaxToken = 64
)

const titleInstruction = "Write a short title (at most six words) for the conversation below. " +
	"Reply with the title only: no quotes, no trailing punctuation."

// titleTries remembers the sessions asked for a title by this daemon, so a
// model that answers nothing usable is asked once per session per run.
type titleTries struct {
	mu   sync.Mutex
	done map[string]bool // logical id → asked; guarded by mu
}

// first reports whether sid was not asked yet, and marks it asked.
func (t *titleTries) first(sid string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done == nil {
		t.done = map[string]bool{}
	}
	if t.done[sid] {
		return false
	}
	t.done[sid] = true
	return true
}

// autoTitle runs on the executor after adm settled with res.
func (a *Authority) autoTitle(l *live, adm store.Admission, res turnResult) {
	if res.Outcome != protocol.OutcomeCompleted || !a.cfg.Settings().Titles || a.isDraining() {
		return
	}
	r := l.current()
	if r.Policy.SafeMode || r.Policy.Source == "tool" || r.Policy.Source == "oneshot" {
		return
	}
	ctx, cancel := context.WithTimeout(a.ctx, titleTimeout)
	defer cancel()
	row, err := a.cfg.Store.Session(ctx, l.id)
	if err != nil || row.Title != "" || !a.titles.first(l.id) {
		return
	}
	title, used, err := a.askTitle(ctx, l, parsePayload(adm.PayloadJSON).Text, res.Text)
	if err != nil {
		a.log.Warn("automatic title failed; the session stays untitled", "session_id", l.id, "err", err)
	}
	if title == "" && used == (model.Usage{}) {
		return
	}
	if err := a.commitTitle(l, title, used); err != nil {
		a.log.Error("automatic title not recorded", "session_id", l.id, "err", err)
	}
}

// askTitle is the one title request; it returns the cleaned title ("" when
// the answer had none) and the tokens the request used.
func (a *Authority) askTitle(ctx context.Context, l *live, prompt, answer string) (string, model.Usage, error) {
	r := l.current()
	// One request, no retries: a title is not worth a second.
	client := model.New(model.Config{BaseURL: r.Policy.BaseURL, APIKey: modelKey(l, r.Policy, a.cfg.Settings()),
		MaxRetries: -1, Timeout: titleTimeout})
	reply, used, err := agent.Ask(ctx, client, r.Policy.Model, titleInstruction,
		"User: "+cutRunes(prompt, maxTitleInput)+"\n\nAssistant: "+cutRunes(answer, maxTitleInput), titleMaxToken)
	return cleanTitle(reply), used, err
}

// commitTitle journals title (when non-empty and the session is still
// untitled) the way a rename is journaled, and adds the request's tokens.
func (a *Authority) commitTitle(l *live, title string, used model.Usage) error {
	return a.commit(context.WithoutCancel(a.ctx), l.id, func(tx *store.Tx, j *journal) error {
		if err := tx.AddUsage(l.id, storeUsage(used)); err != nil {
			return err
		}
		row, err := tx.Session(l.id)
		if err != nil {
			return err
		}
		if title != "" && row.Title == "" {
			if err := tx.SetTitle(l.id, title); err != nil {
				return err
			}
			if _, err := tx.BumpRevision(l.id); err != nil {
				return err
			}
		}
		return a.addInfo(tx, j, l, l.isRunning(), stamp{})
	}, nil)
}

// cleanTitle makes a model's answer a title that session.CheckTitle
// accepts, or "": reasoning blocks, a "Title:" label, markdown and quotes
// around it go; control and bidi characters become spaces; runs of space
// collapse; it is cut to 60 characters at a word boundary.
func cleanTitle(s string) string {
	s = strings.ToValidUTF8(stripThink(s), "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || protocol.Spoofing(r) || unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, firstLine(s))
	s = strings.Join(strings.Fields(s), " ")
	if label, rest, ok := strings.Cut(s, ":"); ok && strings.EqualFold(strings.TrimLeft(label, "*#_ "), "title") {
		s = rest
	}
	s = strings.Trim(s, " \"'`*_#“”‘’«»")
	s = strings.TrimRight(s, " .")
	s = cutWords(s, maxAutoTitle)
	if session.CheckTitle(s) != nil {
		return ""
	}
	return s
}

// stripThink drops <think>…</think> blocks some local models put first.
func stripThink(s string) string {
	for {
		i := strings.Index(s, "<think>")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "</think>")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len("</think>"):]
	}
}

// firstLine is the first line of s with any letters in it.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if strings.IndexFunc(line, unicode.IsLetter) >= 0 || strings.IndexFunc(line, unicode.IsDigit) >= 0 {
			return line
		}
	}
	return ""
}

// cutWords cuts s to n runes, at the last space when there is one in the
// second half.
func cutWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	if i := strings.LastIndex(string(r), " "); i > len(string(r))/2 {
		return strings.TrimRight(string(r)[:i], " .,;:-")
	}
	return strings.TrimSpace(string(r))
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
