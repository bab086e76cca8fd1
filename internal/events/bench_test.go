package events

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// BenchmarkFanout measures one committed event delivered to n subscribers,
// each drained by its own goroutine; ns/op is per committed event.
func BenchmarkFanout(b *testing.B) {
	for _, n := range []int{8, 32} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) { benchFanout(b, n) })
	}
}

func benchFanout(b *testing.B, n int) {
	h := NewHub(Options{Buffer: b.N + 1, BufferBytes: 1 << 40})
	ctx := context.Background()
	var g errgroup.Group
	for range n {
		s, err := h.Subscribe("s", func() error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		g.Go(func() error {
			for got := 0; got < b.N; {
				evs, err := s.Next(ctx)
				if err != nil {
					return err
				}
				got += len(evs)
			}
			return nil
		})
	}
	payload := json.RawMessage(`{"tool_id":"t1","name":"terminal","args":{}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		_ = h.Commit("s", func() ([]protocol.Event, error) {
			return []protocol.Event{{Type: protocol.EventToolStart, SessionID: "s", Seq: int64(i + 1), Payload: payload}}, nil
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
}
