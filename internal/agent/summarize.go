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
// assistant that will continue the conversation: one request, no tools, not
// streamed. Each message is shown as "role: content", an assistant's tool
// calls as their JSON after it. The error is the model's, unwrapped.
func Summarize(ctx context.Context, m Model, modelName string, msgs []model.Message) (string, error) {
	resp, err := m.Complete(ctx, model.Request{
		Model: modelName,
		Messages: []model.Message{
			{Role: "system", Content: summaryInstruction},
			{Role: "user", Content: conversation(msgs)},
		},
	}, nil)
	if err != nil {
		return "", err
	}
	return resp.Message.Content, nil
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
