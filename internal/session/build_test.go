package session

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

var now = time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)

// TestBuildRejects is the validation matrix (docs/protocol.md#create-fields, #toolsets).
// {cwd}, {plain}, {ws}, {root} in the JSON are replaced by the env's paths.
func TestBuildRejects(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 257)
	tests := []struct {
		name, in string
		reason   protocol.Reason
		detail   string
	}{
		{"source telegram", `{"source":"telegram"}`, protocol.ReasonInvalidParams, "source:"},
		{"source cron", `{"source":"cron"}`, protocol.ReasonInvalidParams, "source:"},
		{"source empty", `{"source":""}`, protocol.ReasonInvalidParams, "source:"},
		{"request_id empty", `{"request_id":""}`, protocol.ReasonInvalidParams, "request_id:"},
		{"request_id 257", `{"request_id":"` + long + `"}`, protocol.ReasonInvalidParams, "request_id:"},
		{"cwd relative", `{"cwd":"relative"}`, protocol.ReasonInvalidParams, "cwd:"},
		{"cwd dot", `{"cwd":"."}`, protocol.ReasonInvalidParams, "cwd:"},
		{"cwd empty", `{"cwd":""}`, protocol.ReasonInvalidParams, "cwd:"},
		{"cwd missing", `{"cwd":"{root}/nope"}`, protocol.ReasonInvalidParams, "cwd:"},
		{"cwd is a file", `{"cwd":"{ws}/go.mod"}`, protocol.ReasonInvalidParams, "cwd:"},
		{"model empty", `{"model":""}`, protocol.ReasonInvalidParams, "model:"},
		{"model blank", `{"model":" \t"}`, protocol.ReasonInvalidParams, "model:"},
		{"toolset unknown", `{"toolsets":["nope"]}`, protocol.ReasonInvalidParams, "toolsets:"},
		{"desktop_ui with cli", `{"toolsets":["desktop_ui"],"source":"cli"}`, protocol.ReasonInvalidParams, "toolsets: desktop_ui"},
		{"desktop_ui with tui", `{"toolsets":["desktop_ui"],"source":"tui"}`, protocol.ReasonInvalidParams, "toolsets: desktop_ui"},
		{"toolset not enabled", `{"toolsets":["catalog"]}`, protocol.ReasonInvalidParams, "not enabled"},
		{"coding outside a workspace", `{"toolsets":["coding"],"cwd":"{plain}"}`, protocol.ReasonInvalidParams, "not enabled"},
		{"provider empty", `{"provider":""}`, protocol.ReasonInvalidParams, "provider:"},
		{"provider unknown", `{"provider":"acme"}`, protocol.ReasonInvalidParams, "provider:"},
		{"base_url ftp", `{"base_url":"ftp://h/v1"}`, protocol.ReasonInvalidParams, "base_url:"},
		{"base_url userinfo", `{"base_url":"http://user:pw@h/v1"}`, protocol.ReasonInvalidParams, "base_url: must not contain userinfo"},
		{"base_url query", `{"base_url":"http://h/v1?key=1"}`, protocol.ReasonInvalidParams, "base_url: must not contain a query"},
		{"base_url empty query", `{"base_url":"http://h/v1?"}`, protocol.ReasonInvalidParams, "base_url:"},
		{"base_url fragment", `{"base_url":"http://h/v1#f"}`, protocol.ReasonInvalidParams, "base_url:"},
		{"base_url no host", `{"base_url":"http:///v1"}`, protocol.ReasonInvalidParams, "base_url:"},
		{"base_url opaque", `{"base_url":"http:h"}`, protocol.ReasonInvalidParams, "base_url:"},
		{"base_url garbage", `{"base_url":"not a url"}`, protocol.ReasonInvalidParams, "base_url:"},
		{"api_key empty", `{"api_key":""}`, protocol.ReasonInvalidParams, "api_key:"},
		{"reasoning garbage", `{"reasoning":"garbage"}`, protocol.ReasonInvalidParams, "reasoning:"},
		{"max_turns true", `{"max_turns":true}`, protocol.ReasonInvalidParams, "max_turns:"},
		{"max_turns false", `{"max_turns":false}`, protocol.ReasonInvalidParams, "max_turns:"},
		{"max_turns null", `{"max_turns":null}`, protocol.ReasonInvalidParams, "max_turns:"},
		{"max_turns -2", `{"max_turns":-2}`, protocol.ReasonInvalidParams, "max_turns:"},
		{"max_turns fraction", `{"max_turns":1.5}`, protocol.ReasonInvalidParams, "max_turns:"},
		{"max_turns 3.0", `{"max_turns":3.0}`, protocol.ReasonInvalidParams, "max_turns:"},
		{"max_turns numeric string", `{"max_turns":"3"}`, protocol.ReasonInvalidParams, "max_turns:"},
		{"max_turns word", `{"max_turns":"forever"}`, protocol.ReasonInvalidParams, "max_turns:"},
		{"max_turns object", `{"max_turns":{}}`, protocol.ReasonInvalidParams, "max_turns:"},
		{"max_turns overflow", `{"max_turns":99999999999999999999}`, protocol.ReasonInvalidParams, "max_turns:"},
		{"skills empty", `{"skills":[]}`, protocol.ReasonInvalidParams, "skills:"},
		{"skills blank name", `{"skills":[""]}`, protocol.ReasonInvalidParams, "skills:"},
		{"skills with safe_mode", `{"skills":["review"],"safe_mode":true,"model":"m"}`, protocol.ReasonInvalidParams, "skills:"},
		{"skills with ignore_user_config", `{"skills":["review"],"ignore_user_config":true,"model":"m"}`, protocol.ReasonInvalidParams, "skills:"},
		{"skill unknown", `{"skills":["missing"]}`, protocol.ReasonUnknownSkill, "skills:"},
		{"skill partly unknown", `{"skills":["review","missing"]}`, protocol.ReasonUnknownSkill, "missing"},
		{"skill traversal", `{"skills":["../ws"]}`, protocol.ReasonUnknownSkill, "skills:"},
		{"safe_mode without model", `{"safe_mode":true}`, protocol.ReasonInvalidParams, "model:"},
		{"ignore_user_config without model", `{"ignore_user_config":true}`, protocol.ReasonInvalidParams, "model:"},
		{"safe_mode with ignore false", `{"safe_mode":true,"ignore_user_config":false,"model":"m"}`, protocol.ReasonInvalidParams, "ignore_user_config:"},
		{"editor with cli", `{"editor":{"name":"zed"}}`, protocol.ReasonInvalidParams, "editor:"},
		{"editor array", `{"source":"acp","editor":[]}`, protocol.ReasonInvalidParams, "editor:"},
		{"editor string", `{"source":"acp","editor":"zed"}`, protocol.ReasonInvalidParams, "editor:"},
		{"editor null", `{"source":"acp","editor":null}`, protocol.ReasonInvalidParams, "editor:"},
		{"title empty", `{"title":""}`, protocol.ReasonInvalidParams, "title:"},
		{"title blank", `{"title":"   "}`, protocol.ReasonInvalidParams, "title:"},
		{"title 201", `{"title":"` + strings.Repeat("t", 201) + `"}`, protocol.ReasonInvalidParams, "title:"},
		{"title newline", `{"title":"a\nb"}`, protocol.ReasonInvalidParams, "title:"},
		{"title escape", `{"title":"a\u001b[2Kb"}`, protocol.ReasonInvalidParams, "title: must not contain control"},
		{"title rlo", `{"title":"invoice\u202etxt.exe"}`, protocol.ReasonInvalidParams, "title: must not contain control characters or bidi"},
		{"title isolate", `{"title":"a\u2067b"}`, protocol.ReasonInvalidParams, "title:"},
		{"title lrm", `{"title":"a\u200eb"}`, protocol.ReasonInvalidParams, "title:"},
		{"title alm", `{"title":"a\u061cb"}`, protocol.ReasonInvalidParams, "title:"},
		{"title c1 csi", `{"title":"a\u009bb"}`, protocol.ReasonInvalidParams, "title:"},
	}
	e := newEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Build(params(t, e.expand(tt.in)), "uid:1000", e.d, now)
			wantErr(t, err, tt.reason, tt.detail)
		})
	}
}

func (e env) expand(s string) string {
	return strings.NewReplacer("{root}", e.root, "{plain}", e.plain, "{ws}", e.ws, "{home}", e.home).Replace(s)
}

// TestDecoderRejects documents the malformed values that never reach Build:
// a strict decoder of SessionCreateParams refuses them by type or key.
func TestDecoderRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"checkpoints":"yes"}`, `{"ignore_rules":"false"}`, `{"provider":12}`,
		`{"internal":true}`, `{"profile":"foreign"}`, `{"hidden":1}`, `{"toolsets":"terminal"}`,
		`{"skills":[1]}`, `{"yolo":null,"x":1}`,
	} {
		dec := json.NewDecoder(strings.NewReader(in))
		dec.DisallowUnknownFields()
		var p protocol.SessionCreateParams
		if err := dec.Decode(&p); err == nil {
			t.Errorf("%s decoded without error", in)
		}
	}
}

// TestBuildAccepts checks what valid fields freeze into the policy.
func TestBuildAccepts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name  string
		in    string
		check func(p Policy) string // "" = fine
	}{
		{"defaults", `{}`, func(p Policy) string {
			return expect(p.Source == "cli" && p.Platform == "cli" && p.Cwd == e.home && p.Model == "gpt-default" &&
				p.Provider == "custom" && p.BaseURL == "http://127.0.0.1:11434/v1" && p.MaxTurns == 90 && p.Streaming &&
				p.CredentialRef == nil && p.SkillsPrompt == nil && p.Editor == nil && !p.CodingPosture)
		}},
		{"cwd cleaned", `{"cwd":"{plain}/../plain/"}`, func(p Policy) string { return expect(p.Cwd == e.plain) }},
		{"max_turns 3", `{"max_turns":3}`, func(p Policy) string { return expect(p.MaxTurns == 3) }},
		{"max_turns 0 is unlimited", `{"max_turns":0}`, func(p Policy) string { return expect(p.MaxTurns == 0) }},
		{"max_turns -1", `{"max_turns":-1}`, func(p Policy) string { return expect(p.MaxTurns == 0) }},
		{"max_turns none", `{"max_turns":"none"}`, func(p Policy) string { return expect(p.MaxTurns == 0) }},
		{"max_turns unlimited", `{"max_turns":"unlimited"}`, func(p Policy) string { return expect(p.MaxTurns == 0) }},
		{"reasoning high", `{"reasoning":"high"}`, func(p Policy) string { return expect(p.Reasoning == "high") }},
		{"reasoning empty", `{"reasoning":""}`, func(p Policy) string { return expect(p.Reasoning == "") }},
		{"named provider brings its url", `{"provider":"openrouter"}`, func(p Policy) string {
			return expect(p.Provider == "openrouter" && p.BaseURL == "https://openrouter.ai/api/v1")
		}},
		{"explicit base_url wins", `{"provider":"openrouter","base_url":"https://proxy.example/v1"}`, func(p Policy) string {
			return expect(p.BaseURL == "https://proxy.example/v1")
		}},
		{"custom provider", `{"provider":"custom","base_url":"http://[::1]:8080/v1"}`, func(p Policy) string {
			return expect(p.Provider == "custom" && p.BaseURL == "http://[::1]:8080/v1")
		}},
		{"flags", `{"yolo":true,"checkpoints":true,"accept_hooks":true,"pass_session_id":true,"ignore_rules":false,"hidden":true,"title":"My work"}`,
			func(p Policy) string {
				return expect(p.Yolo && p.Checkpoints && p.AcceptHooks && p.PassSessionID && !p.IgnoreRules && p.Hidden && p.Title == "My work")
			}},
		{"ignore_rules", `{"ignore_rules":true}`, func(p Policy) string { return expect(p.IgnoreRules) }},
		{"safe_mode uses code defaults", `{"safe_mode":true,"model":"m"}`, func(p Policy) string {
			return expect(p.SafeMode && p.IgnoreUserConfig && p.IgnoreRules && p.Model == "m" && p.Provider == "" &&
				p.ConfigJSON == "{}" && p.Cwd == e.home && p.MaxTurns == 90)
		}},
		{"ignore_user_config", `{"ignore_user_config":true,"model":"m","provider":"custom","base_url":"https://h/v1"}`, func(p Policy) string {
			return expect(!p.SafeMode && p.IgnoreUserConfig && p.BaseURL == "https://h/v1" && p.ConfigJSON == "{}" &&
				p.KeyEndpoint == KeyEndpointNone)
		}},
		{"skills rendered in order", `{"skills":["style","review","style"]}`, func(p Policy) string {
			return expect(p.SkillsPrompt != nil && *p.SkillsPrompt == "## Skill: style\n\nUse gofmt.\n\n## Skill: review\n\nReview carefully.")
		}},
		{"acp editor canonical", `{"source":"acp","editor":{"name":"zed","mcp":{"b":1,"a":2}}}`, func(p Policy) string {
			return expect(p.Platform == "acp" && string(p.Editor) == `{"mcp":{"a":2,"b":1},"name":"zed"}`)
		}},
		{"terminal scope", `{"cwd":"{plain}"}`, func(p Policy) string {
			return expect(p.TerminalJSON == fmt.Sprintf(`{"TERMINAL_CWD":%q}`, e.plain))
		}},
		{"config snapshot frozen", `{}`, func(p Policy) string {
			return expect(p.ConfigJSON == `{"model":{"api_key_env":"OPENAI_API_KEY","default":"gpt-default"}}`)
		}},
		{"title at 200", `{"title":"` + strings.Repeat("é", 200) + `"}`, func(p Policy) string { return expect(len(p.Title) == 400) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, err := Build(params(t, e.expand(tt.in)), "uid:1000", e.d, now)
			if err != nil {
				t.Fatal(err)
			}
			if msg := tt.check(l.Receipt.Policy); msg != "" {
				t.Fatalf("policy %+v", l.Receipt.Policy)
			}
		})
	}
}

func expect(ok bool) string {
	if ok {
		return ""
	}
	return "unexpected policy"
}

func TestBuildDefaultCwd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name, defaultCwd, home, want string
		wantErr                      bool
	}{
		{"config default_cwd", e.plain, e.home, e.plain, false},
		{"home when unset", "", e.home, e.home, false},
		{"missing default", filepath.Join(e.root, "gone"), e.home, "", true},
		{"no home", "", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := e.d
			d.DefaultCwd, d.HomeDir = tt.defaultCwd, tt.home
			l, err := Build(protocol.SessionCreateParams{}, "uid:1000", d, now)
			if tt.wantErr {
				wantErr(t, err, protocol.ReasonInvalidParams, "cwd:")
				return
			}
			if err != nil || l.Receipt.Policy.Cwd != tt.want {
				t.Fatalf("cwd = %q, %v; want %q", l.Receipt.Policy.Cwd, err, tt.want)
			}
		})
	}
}

func TestBuildNoDefaultModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.d
	d.Model = ""
	_, err := Build(protocol.SessionCreateParams{}, "uid:1000", d, now)
	wantErr(t, err, protocol.ReasonInvalidParams, "model:")
}

func TestBuildCodeDefaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.d
	d.CodeDefaults = &Defaults{
		ProfileID: "ignored", HomeDir: "/ignored", MaxTurns: 7, Provider: "custom",
		PlatformToolsets: map[string][]string{"cli": {"terminal"}},
		ConfigSnapshot:   map[string]any{"code": true},
	}
	l, err := Build(params(t, `{"safe_mode":true,"model":"m"}`), "uid:1000", d, now)
	if err != nil {
		t.Fatal(err)
	}
	p := l.Receipt.Policy
	if p.MaxTurns != 7 || p.ConfigJSON != `{"code":true}` || p.Cwd != e.home ||
		strings.Join(p.Toolsets, ",") != "terminal" || l.Receipt.ProfileID != "prof-1" {
		t.Fatalf("policy %+v", p)
	}
}

func TestBuildCallerErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.d
	d.ProfileID = ""
	_, err := Build(protocol.SessionCreateParams{}, "uid:1000", d, now)
	wantErr(t, err, protocol.ReasonStorageUnavailable, "")
	_, err = Build(protocol.SessionCreateParams{}, "", e.d, now)
	wantErr(t, err, protocol.ReasonStorageUnavailable, "")
}
