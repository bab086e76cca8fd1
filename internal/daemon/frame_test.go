package daemon

import (
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/hermes-gateway/hermes/internal/protocol"
)

// A frame over gateway.max_frame_bytes closes the connection with 1009;
// the gateway keeps serving others.
func TestOversizedFrameCloses1009(t *testing.T) {
	t.Parallel()
	d := startTest(t, "gateway: {max_frame_bytes: 4096}\n")
	ctx := ctxT(t)
	ticket, id := d.ticket()
	ws, res, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(id.APIOrigin, "http")+"/api/ws", &websocket.DialOptions{
		Subprotocols: []string{protocol.Subprotocol, protocol.TicketSubprotocolPrefix + ticket},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if got := res.Header.Get("Sec-WebSocket-Protocol"); got != protocol.Subprotocol {
		t.Fatalf("selected subprotocol %q", got)
	}
	if _, _, err := ws.Read(ctx); err != nil { // gateway.ready
		t.Fatal(err)
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 8192) + `"}}`
	if err := ws.Write(ctx, websocket.MessageText, []byte(big)); err != nil {
		t.Fatal(err)
	}
	_, _, err = ws.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("want close 1009, got %v", err)
	}
	if err := d.connect().Ping(ctx); err != nil {
		t.Fatal(err)
	}
}
