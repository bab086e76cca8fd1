package rpc

import (
	"context"
	"errors"
	"io"
	"net"

	"github.com/coder/websocket"
)

// Stream carries whole messages (one JSON-RPC frame each). Read returns
// io.EOF when the peer ended the stream cleanly. Read and Write may be called
// concurrently with each other and with Close; Write is never called
// concurrently with itself by a Conn.
type Stream interface {
	Read(ctx context.Context) ([]byte, error)
	Write(ctx context.Context, msg []byte) error
	Close() error
}

// WebSocketStream adapts a coder/websocket connection: frames are text
// messages. The caller sets the read limit (c.SetReadLimit); a frame over it
// makes websocket close the connection with status 1009 and Read return an
// error wrapping websocket.ErrMessageTooBig, which Conn.Run returns.
//
// Note that coder/websocket closes the connection when the context of a Read
// or Write is cancelled.
func WebSocketStream(c *websocket.Conn) Stream { return wsStream{c} }

type wsStream struct{ c *websocket.Conn }

func (s wsStream) Read(ctx context.Context) ([]byte, error) {
	_, data, err := s.c.Read(ctx)
	if err != nil {
		switch websocket.CloseStatus(err) {
		case websocket.StatusNormalClosure, websocket.StatusGoingAway:
			return nil, io.EOF
		}
		return nil, err
	}
	return data, nil
}

func (s wsStream) Write(ctx context.Context, msg []byte) error {
	return s.c.Write(ctx, websocket.MessageText, msg)
}

func (s wsStream) Close() error {
	err := s.c.Close(websocket.StatusNormalClosure, "")
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
