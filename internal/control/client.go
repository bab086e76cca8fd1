package control

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// ErrUnavailable: no gateway answers on the socket (missing, refused,
// closed without a reply, or owned by another uid). The CLI may start a
// daemon, or exits 3.
var ErrUnavailable = errors.New("gateway unavailable")

// RemoteError is an ok:false reply; Text is the gateway's public message.
type RemoteError struct{ Text string }

func (e *RemoteError) Error() string { return "gateway: " + e.Text }

// defaultCallTimeout bounds a Call whose context has no deadline.
const defaultCallTimeout = 10 * time.Second

var callID atomic.Int64

// Call sends one request to the control socket at socketPath and decodes
// the result into result (a pointer, or nil to discard). It checks that the
// server runs under this process's uid (a squatted socket is ErrUnavailable).
func Call(ctx context.Context, socketPath, verb string, params, result any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultCallTimeout)
		defer cancel()
	}
	c, err := dialControl(ctx, socketPath)
	if err != nil {
		return err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	deadline, _ := ctx.Deadline()
	_ = c.SetDeadline(deadline)

	id := strconv.FormatInt(callID.Add(1), 10)
	if err := writeRequest(c, id, verb, params); err != nil {
		return err
	}
	rep, err := readReply(c)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("control %s: %w", verb, ctx.Err())
		}
		return err
	}
	return decodeReply(rep, id, result)
}

// dialControl connects and verifies the server's uid.
func dialControl(ctx context.Context, socketPath string) (*net.UnixConn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", socketPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	c := nc.(*net.UnixConn)
	srv, err := peerCred(c)
	if err != nil || srv.UID != os.Getuid() {
		c.Close()
		return nil, fmt.Errorf("%w: control socket %s is not served by uid %d", ErrUnavailable, socketPath, os.Getuid())
	}
	return c, nil
}

func writeRequest(c *net.UnixConn, id, verb string, params any) error {
	if params == nil {
		params = struct{}{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("encode %s params: %w", verb, err)
	}
	req := request{Protocol: ProtocolVersion, ID: json.RawMessage(id), Verb: verb, Params: p}
	// A write error is not final: the server may have answered (and
	// closed) before reading everything; the reply says why.
	if err := writeJSONLine(c, req); err == nil {
		_ = c.CloseWrite()
	}
	return nil
}

func readReply(c *net.UnixConn) (reply, error) {
	line, err := readLine(bufio.NewReader(c), maxReplyBytes)
	if err != nil {
		return reply{}, fmt.Errorf("%w: no reply from the gateway", ErrUnavailable)
	}
	var rep reply
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&rep); err != nil {
		return reply{}, fmt.Errorf("malformed reply from the gateway: %w", err)
	}
	return rep, nil
}

func decodeReply(rep reply, id string, result any) error {
	if rep.Protocol != ProtocolVersion {
		return fmt.Errorf("gateway speaks control protocol %d, want %d", rep.Protocol, ProtocolVersion)
	}
	if !rep.OK {
		// An id of null means the server could not read ours.
		if string(rep.ID) != id && string(rep.ID) != "null" {
			return fmt.Errorf("reply id %s does not match request id %s", rep.ID, id)
		}
		return &RemoteError{Text: rep.Error}
	}
	if string(rep.ID) != id {
		return fmt.Errorf("reply id %s does not match request id %s", rep.ID, id)
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(rep.Result, result); err != nil {
		return fmt.Errorf("decode result: %w", err)
	}
	return nil
}
