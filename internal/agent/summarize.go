package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-gateway/hermes/internal/model"
)

// summaryInstruction is the system message of a summary request.
const summaryInstruction = "Summarize the conversation below for the assistant that will continue it. " +
	"Keep every decision, file path, command, open question and unfinished task. Be concise."

// Summarize asks m for a summary of msgs (a part of a transcript), for the
// assistant that will continue the conversation (Ask). Each message is
// shown as "role: content", an assistant's tool calls as their JSON after
// it. The error is the model's, unwrapped.
func Summarize(ctx context.Context, m Model, modelName string, msgs []model.Message) (string, error) {
	summary, _, err := Ask(ctx, m, modelName, summaryInstruction, conversation(msgs), 0)
	return summary, err
}

// Ask sends m one request, no tools, not streamed: instruction as the
// system message, text as the user's, at most maxTokens of answer when
// maxTokens > 0. It returns the answer and the tokens the request used; the
// error is the model's, unwrapped.
func Ask(ctx context.Context, m Model, modelName, instruction, text string, maxTokens int) (string, model.Usage, error) {
	resp, err := m.Complete(ctx, model.Request{
		Model:     modelName,
		MaxTokens: maxTokens,
		Messages: []model.Message{
			{Role: model.RoleSystem, Content: instruction},
			{Role: model.RoleUser, Content: text},
		},
	}, nil)
	if err != nil {
		return "", model.Usage{}, err
	}
	var used model.Usage
	if resp.Usage != nil {
		used = *resp.Usage
	}
	return resp.Message.Content, used, nil
}

// conversation is msgs as the text the summary request quotes.
func conversation(msgs []model.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
		if m.ToolCalls != nil { // an assistant message that carried tool_calls, even []
			calls, _ := json.Marshal(m.ToolCalls)
			fmt.Fprintf(&b, "(tool calls: %s)\n", calls)
		}
	}
	return b.String()
}
