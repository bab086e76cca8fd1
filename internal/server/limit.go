package server

import (
	"bytes"
	"crypto/tls"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxConnections is the connection cap when Config.MaxConnections is
// 0 (gateway.max_connections).
const DefaultMaxConnections = 256

// refusal is the whole answer to a connection over the cap: a complete
// HTTP response, sent once the request's header block is read (refuse),
// then the connection is closed. A WebSocket client sees a failed
// handshake with status 503.
var refusal = []byte("HTTP/1.1 503 Service Unavailable\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"Connection: close\r\n" +
	"Content-Length: " + strconv.Itoa(len(RefusalText)) + "\r\n" +
	"\r\n" + RefusalText)

// RefusalText is the body of the answer to a connection over the cap.
const RefusalText = "too many connections to this gateway (gateway.max_connections); retry later\n"

// Refusals are answered by a bounded number of goroutines, each for at most
// refuseLinger; past maxRefusing a connection is closed without an answer.
const (
	maxRefusing  = 64
	refuseLinger = time.Second
)

// capListener counts the connections it accepted and has not seen closed.
// One over max is answered with refusal and closed: it never reaches
// http.Server, so it holds no request buffers and no handler goroutine.
type capListener struct {
	net.Listener
	max    int64
	active atomic.Int64 // accepted, not yet closed

	refusing chan struct{} // one token per refusal goroutine
	wg       sync.WaitGroup
}

func newCapListener(ln net.Listener, max int) *capListener {
	if max <= 0 {
		max = DefaultMaxConnections
	}
	return &capListener{Listener: ln, max: int64(max), refusing: make(chan struct{}, maxRefusing)}
}

// Accept returns the next connection under the cap, refusing those over it.
func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.active.Add(1) <= l.max {
			if _, ok := c.(*tls.Conn); ok {
				return c, nil // released by connState: see there
			}
			return &countedConn{Conn: c, l: l}, nil
		}
		l.active.Add(-1)
		l.refuse(c)
	}
}

// refuse answers c with the refusal in the background. It first reads
// the request's header block (up to refuseLinger and maxRefusedHeader
// bytes): an answer that arrives before the client has finished sending
// its request is, to Go's HTTP client among others, an unsolicited
// response on an idle connection, not a 503. Then the response is written,
// the write side is shut and whatever else the client sent is drained
// until it closes (or the deadline), so closing never resets a connection
// whose answer is still unread.
func (l *capListener) refuse(c net.Conn) {
	select {
	case l.refusing <- struct{}{}:
	default:
		_ = c.Close()
		return
	}
	l.wg.Go(func() {
		defer func() { <-l.refusing }()
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(refuseLinger))
		awaitHeader(c)
		if _, err := c.Write(refusal); err != nil {
			return
		}
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		var buf [4096]byte
		for {
			if _, err := c.Read(buf[:]); err != nil {
				return
			}
		}
	})
}

// maxRefusedHeader bounds what a refusal reads of the request it refuses.
const maxRefusedHeader = 8 << 10

// awaitHeader reads from c until the end of an HTTP header block
// ("\r\n\r\n"), maxRefusedHeader bytes, an error or c's deadline.
func awaitHeader(c net.Conn) {
	var seen []byte
	buf := make([]byte, 1024)
	for len(seen) < maxRefusedHeader {
		n, err := c.Read(buf)
		seen = append(seen, buf[:n]...)
		if bytes.Contains(seen, []byte("\r\n\r\n")) || err != nil {
			return
		}
	}
}

// connState is the http.Server hook that releases the slot of a *tls.Conn,
// which Accept cannot wrap (http.Server recognizes TLS by that concrete
// type). Such a connection is counted until it closes or is hijacked, so
// over a TLS listener an upgraded WebSocket no longer counts; the daemon
// itself listens on plain TCP, where every connection counts until closed.
func (l *capListener) connState(c net.Conn, st http.ConnState) {
	if _, ok := c.(*tls.Conn); ok && (st == http.StateClosed || st == http.StateHijacked) {
		l.active.Add(-1)
	}
}

// wait joins the refusal goroutines (after Close).
func (l *capListener) wait() { l.wg.Wait() }

// countedConn gives its slot back once, on its first Close (http.Server's,
// or the WebSocket's after a hijack).
type countedConn struct {
	net.Conn
	l    *capListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.active.Add(-1) })
	return c.Conn.Close()
}
