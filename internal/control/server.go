package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// ioTimeout bounds one connection: read the request, answer, write.
const ioTimeout = 5 * time.Second

// maxConns bounds concurrent connections; accept waits when it is reached.
const maxConns = 64

// ErrInUse: Listen found a live server on the socket path. Another daemon
// serves this home; the caller exits (docs/protocol.md#exit-codes: 3).
var ErrInUse = errors.New("control socket is in use by a live gateway")

// Options configures a Server.
type Options struct {
	// Logger receives one line per refused or failed request (never
	// params or results). Nil discards.
	Logger *slog.Logger
	// IsToolProcess reports whether pid is a process the gateway started
	// for a tool. Nil means no process is; the HERMES_TOOL_PROCESS check
	// still applies.
	IsToolProcess func(pid int) bool
}

// Server is a listening control socket. Create it with Listen, serve with
// Run, stop with Close or by cancelling Run's context.
type Server struct {
	path string
	h    Handler
	log  *slog.Logger
	tool func(int) bool
	uid  int // the only peer uid served: the daemon's own
	ln   *net.UnixListener

	closeOnce sync.Once
	closeErr  error
}

// Listen creates the control socket at path and returns a Server that is
// not yet accepting (call Run). The parent directory is made 0700 (it must
// be owned by this uid and not sticky, i.e. not a shared /tmp); an existing
// socket file is replaced only if nothing answers on it (ErrInUse
// otherwise); any other existing file is refused. The socket is chmod 0600.
// Two daemons racing for one home are kept apart by the home lock, not here.
func Listen(path string, h Handler, opts Options) (*Server, error) {
	if err := securePrivateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on control socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("chmod control socket: %w", err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{path: path, h: h, log: log, tool: opts.IsToolProcess, uid: os.Getuid(), ln: ln}, nil
}

// securePrivateDir makes dir 0700 after checking it is a directory owned by
// this uid and not a sticky shared directory.
func securePrivateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("control socket directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("control socket directory %s is not a directory", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("control socket directory %s is not owned by uid %d", dir, os.Getuid())
	case fi.Mode()&fs.ModeSticky != 0:
		return fmt.Errorf("control socket directory %s is a shared (sticky) directory; use a private home", dir)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("chmod control socket directory: %w", err)
		}
	}
	return nil
}

// removeStaleSocket removes path if it is a socket nobody answers on.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("control socket path: %w", err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("control socket path %s exists and is not a socket", path)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return ErrInUse
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("probe existing control socket: %w", err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale control socket: %w", err)
	}
	return nil
}

// Path is the socket path.
func (s *Server) Path() string { return s.path }

// Close stops accepting and removes the socket file. In-flight requests
// finish (Run waits for them). Safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.ln.Close() })
	return s.closeErr
}

// Run accepts connections until Close or until ctx is done, and returns
// after every connection goroutine exited. It returns nil on Close or
// cancellation and the accept error otherwise.
func (s *Server) Run(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, maxConns)
	var backoff time.Duration
	for {
		slots <- struct{}{}
		c, err := s.ln.AcceptUnix()
		if err != nil {
			<-slots
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			if backoff = nextBackoff(backoff); !waitBackoff(ctx, backoff) {
				return nil
			}
			s.log.Warn("control socket accept", "err", err)
			continue
		}
		backoff = 0
		wg.Go(func() {
			defer func() { <-slots }()
			s.serveConn(ctx, c)
		})
	}
}

func nextBackoff(d time.Duration) time.Duration {
	if d == 0 {
		return 5 * time.Millisecond
	}
	return min(2*d, time.Second)
}

// waitBackoff waits d, or reports false when ctx ends first.
func waitBackoff(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// serveConn checks the peer, then answers one request and closes.
func (s *Server) serveConn(ctx context.Context, c *net.UnixConn) {
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	p, err := peerCred(c)
	if err != nil || p.UID != s.uid {
		// Refused before a byte is read; the peer sees EOF.
		s.log.Warn("control socket peer refused", "peer_uid", p.UID, "peer_pid", p.PID, "err", err)
		return
	}
	_ = c.SetDeadline(time.Now().Add(ioTimeout))
	ctx, cancel := context.WithTimeout(ctx, ioTimeout)
	defer cancel()
	line, err := readLine(bufio.NewReaderSize(c, 4096), MaxRequestBytes)
	var rep reply
	if err != nil {
		rep = s.fail(nil, "", p, err)
	} else {
		rep = s.handleLine(ctx, p, line)
	}
	if err := writeJSONLine(c, rep); err != nil {
		s.log.Debug("control socket write", "peer_pid", p.PID, "err", err)
	}
}

// readLine reads one line of at most limit bytes (newline included). A
// final line without a newline is accepted at EOF.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > limit {
			return nil, publicError(fmt.Sprintf("request too large (limit %d bytes)", limit))
		}
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, &refusal{text: "no request received", cause: err}
		}
	}
}
