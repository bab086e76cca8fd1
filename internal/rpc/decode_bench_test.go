package rpc

import (
	"encoding/json"
	"testing"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// BenchmarkDecodeParams measures strict params decoding, the per-request
// hot path, on the two commonest shapes.
func BenchmarkDecodeParams(b *testing.B) {
	b.Run("prompt.submit", func(b *testing.B) {
		raw := json.RawMessage(`{"session_id":"0123456789abcdef0123456789abcdef","submission_id":"sub-1","text":"please read README.md and summarise the build steps","attachments":[{"kind":"file","path":"/tmp/a.txt"}]}`)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeParams[protocol.PromptSubmitParams](raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("session.create", func(b *testing.B) {
		raw := json.RawMessage(`{"request_id":"r-1","source":"cli","cwd":"/home/u/src","model":"m","toolsets":["terminal","file"],"max_turns":"none","yolo":false,"editor":{"name":"zed","version":"1"},"title":"T"}`)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeParams[protocol.SessionCreateParams](raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
