package rpc

import (
	"context"
	"errors"
	"io"
	"net"
	"unicode/utf8"

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
// A text frame that is not valid UTF-8 (RFC 6455 §8.1) closes the connection
// with status 1007 and Read returns ErrInvalidUTF8.
//
// Note that coder/websocket closes the connection when the context of a Read
// or Write is cancelled.
func WebSocketStream(c *websocket.Conn) Stream { return wsStream{c} }

type wsStream struct{ c *websocket.Conn }

// ErrInvalidUTF8 is returned by a WebSocket stream's Read after a text frame
// carried invalid UTF-8; the connection is closed with status 1007.
var ErrInvalidUTF8 = errors.New("rpc: text frame is not valid UTF-8")

func (s wsStream) Read(ctx context.Context) ([]byte, error) {
	typ, data, err := s.c.Read(ctx)
	if err != nil {
		switch websocket.CloseStatus(err) {
		case websocket.StatusNormalClosure, websocket.StatusGoingAway:
			return nil, io.EOF
		}
		return nil, err
	}
	if typ == websocket.MessageText && !utf8.Valid(data) {
		_ = s.c.Close(websocket.StatusInvalidFramePayloadData, "text frame is not valid UTF-8")
		return nil, ErrInvalidUTF8
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
