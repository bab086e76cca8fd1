package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// TestSecretsNeverEchoed: the api_key (and credentials in a base_url)
// appear only in Launch.APIKey — never in an error, the receipt or the
// frozen request.
func TestSecretsNeverEchoed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const key = "sk-very-secret-key"
	for _, in := range []string{
		`{"api_key":"` + key + `","source":"telegram"}`,
		`{"api_key":"` + key + `","model":" "}`,
		`{"api_key":"` + key + `","base_url":"http://u:` + key + `@h/v1"}`,
		`{"api_key":"` + key + `","base_url":"http://h/v1?key=` + key + `"}`,
		`{"api_key":"` + key + `","skills":["nope"]}`,
	} {
		_, err := Build(params(t, in), "uid:1000", e.d, now)
		var pe *protocol.Error
		if !errors.As(err, &pe) || strings.Contains(pe.Error(), key) {
			t.Errorf("%s: error %v", in, err)
		}
	}
	l := built(t, e, `{"api_key":"`+key+`"}`)
	raw, err := l.Receipt.Marshal()
	if err != nil || strings.Contains(raw, key) || strings.Contains(l.RequestJSON, key) || l.APIKey != key {
		t.Fatalf("key leaked or lost: %v", err)
	}
}

func FuzzParseReceipt(f *testing.F) {
	e := newEnv(f)
	if raw, err := func() (string, error) {
		l, err := Build(protocol.SessionCreateParams{}, "uid:1000", e.d, now)
		if err != nil {
			return "", err
		}
		return l.Receipt.Advance("c1", now).Marshal()
	}(); err == nil {
		f.Add(raw)
	}
	f.Add(`{}`)
	f.Add(`{"profile_id":1}`)
	f.Fuzz(func(t *testing.T, raw string) {
		r, err := ParseReceipt(raw)
		if err != nil {
			return
		}
		again, err := r.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseReceipt(again); err != nil {
			t.Fatalf("re-parse of %s: %v", again, err)
		}
	})
}
