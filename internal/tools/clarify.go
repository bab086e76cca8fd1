package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// clarifyTool asks the user questions (docs/protocol.md#tools "clarify").
type clarifyTool struct{}

func (clarifyTool) Spec() Spec {
	return spec("clarify", "Ask the user one or more questions and wait for the answers. "+
		"Offer choices when the answer is one of a few options.", `{
  "type": "object",
  "properties": {
    "questions": {
      "type": "array",
      "minItems": 1,
      "items": {
        "type": "object",
        "properties": {
          "question": {"type": "string", "minLength": 1, "description": "The question to ask."},
          "choices": {"type": "array", "items": {"type": "string"}, "description": "Suggested answers."},
          "multi_select": {"type": "boolean", "description": "Several choices may be picked (the answer is then a JSON array string)."}
        },
        "required": ["question"],
        "additionalProperties": false
      }
    }
  },
  "required": ["questions"],
  "additionalProperties": false
}`)
}

type clarifyArgs struct {
	Questions []struct {
		Question    string   `json:"question"`
		Choices     []string `json:"choices"`
		MultiSelect bool     `json:"multi_select"`
	} `json:"questions"`
}

func (clarifyTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a clarifyArgs
	if err := decodeArgs(raw, &a); err != nil {
		return failf("%v", err), nil
	}
	if len(a.Questions) == 0 {
		return failf("invalid arguments: questions must hold at least one question"), nil
	}
	for i, q := range a.Questions {
		if strings.TrimSpace(q.Question) == "" {
			return failf("invalid arguments: question %d is empty", i+1), nil
		}
	}
	if env.Clarifier == nil {
		return failf("no viewer can answer questions in this session; continue with your best judgement"), nil
	}
	answers := make(map[string]string, len(a.Questions))
	for _, q := range a.Questions {
		ans, err := env.Clarifier.Ask(ctx, Question{Question: q.Question, Choices: q.Choices, MultiSelect: q.MultiSelect})
		if err != nil {
			return Result{}, fmt.Errorf("clarify %q: %w", q.Question, err)
		}
		answers[q.Question] = ans
	}
	return jsonResult(answers)
}
