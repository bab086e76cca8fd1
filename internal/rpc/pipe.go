package rpc

import (
	"context"
	"io"
	"sync"
)

// Pipe returns two connected in-memory Streams, for tests: a message written
// on one is read from the other. Writes are synchronous (a Write returns when
// the peer's Read took the message), like net.Pipe. Closing either end closes
// both: Reads then return io.EOF and Writes io.ErrClosedPipe.
func Pipe() (Stream, Stream) {
	ab, ba := make(chan []byte), make(chan []byte)
	st := &pipeState{done: make(chan struct{})}
	return &pipeEnd{in: ba, out: ab, st: st}, &pipeEnd{in: ab, out: ba, st: st}
}

type pipeState struct {
	once sync.Once
	done chan struct{} // closed by the first Close of either end
}

type pipeEnd struct {
	in  <-chan []byte
	out chan<- []byte
	st  *pipeState
}

func (p *pipeEnd) Read(ctx context.Context) ([]byte, error) {
	select {
	case <-p.st.done:
		return nil, io.EOF
	default:
	}
	select {
	case msg := <-p.in:
		return msg, nil
	case <-p.st.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pipeEnd) Write(ctx context.Context, msg []byte) error {
	select {
	case <-p.st.done:
		return io.ErrClosedPipe
	default:
	}
	buf := append([]byte(nil), msg...)
	select {
	case p.out <- buf:
		return nil
	case <-p.st.done:
		return io.ErrClosedPipe
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pipeEnd) Close() error {
	p.st.once.Do(func() { close(p.st.done) })
	return nil
}
