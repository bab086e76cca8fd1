package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// JSON-RPC error codes used in replies.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

// maxLine bounds one incoming message.
const maxLine = 16 << 20

// message is any JSON-RPC 2.0 message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// errClosed: the peer went away before answering.
var errClosed = errors.New("acp: connection closed")

// peer is the JSON-RPC endpoint over stdio: serialized writes, and
// outgoing requests whose responses the reader routes back.
type peer struct {
	in *bufio.Reader

	wmu sync.Mutex // serializes writes to out
	out io.Writer

	mu      sync.Mutex
	nextID  int                      // guarded by mu
	waiting map[string]chan *message // guarded by mu: outgoing request id → reply
	closed  bool                     // guarded by mu
}

func newPeer(r io.Reader, w io.Writer) *peer {
	return &peer{in: bufio.NewReaderSize(r, 64<<10), out: w, waiting: map[string]chan *message{}}
}

// read returns the next message; io.EOF at the end of input. Blank lines
// are skipped; a line that is not JSON is answered with a parse error and
// skipped.
func (p *peer) read() (*message, error) {
	for {
		line, err := p.readLine()
		if len(line) == 0 && err != nil {
			return nil, err
		}
		var m message
		if json.Unmarshal(line, &m) == nil {
			return &m, nil
		}
		if len(bytes.TrimLeft(line, " \t\r\n")) != 0 {
			p.reply(nil, nil, &rpcError{Code: codeParse, Message: "parse error"})
		}
	}
}

// readLine reads up to and including the next newline, at most about
// maxLine bytes.
func (p *peer) readLine() ([]byte, error) {
	line, err := p.in.ReadSlice('\n')
	for errors.Is(err, bufio.ErrBufferFull) && len(line) < maxLine {
		var more []byte
		more, err = p.in.ReadSlice('\n')
		line = append(append([]byte(nil), line...), more...)
	}
	return line, err
}

func (p *peer) write(m message) {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(message{JSONRPC: "2.0", ID: m.ID, Error: &rpcError{Code: codeInternal, Message: "unencodable reply"}})
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, _ = p.out.Write(append(b, '\n'))
}

// reply answers request id with result or err.
func (p *peer) reply(id json.RawMessage, result any, err *rpcError) {
	if id == nil {
		id = json.RawMessage("null")
	}
	if err != nil {
		p.write(message{ID: id, Error: err})
		return
	}
	b, merr := json.Marshal(result)
	if merr != nil {
		p.write(message{ID: id, Error: &rpcError{Code: codeInternal, Message: merr.Error()}})
		return
	}
	p.write(message{ID: id, Result: b})
}

// notify sends a notification.
func (p *peer) notify(method string, params any) {
	b, _ := json.Marshal(params)
	p.write(message{Method: method, Params: b})
}

// call sends a request and returns its reply channel; the reader delivers
// the reply, close delivers nil.
func (p *peer) call(method string, params any) (<-chan *message, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	ch := make(chan *message, 1)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errClosed
	}
	p.nextID++
	id := strconv.Itoa(p.nextID)
	p.waiting[id] = ch
	p.mu.Unlock()
	p.write(message{ID: json.RawMessage(id), Method: method, Params: b})
	return ch, nil
}

// deliver routes a response to its waiting call.
func (p *peer) deliver(m *message) {
	p.mu.Lock()
	ch, ok := p.waiting[string(m.ID)]
	delete(p.waiting, string(m.ID))
	p.mu.Unlock()
	if ok {
		ch <- m
	}
}

// close fails every waiting call.
func (p *peer) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for id, ch := range p.waiting {
		close(ch)
		delete(p.waiting, id)
	}
}
