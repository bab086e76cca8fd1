package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"syscall"

	"github.com/coder/websocket"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/hermes-gateway/hermes/internal/auth"
)

// Terminal pane limits.
const (
	maxPanes       = 8
	paneReadLimit  = 64 << 10
	paneReadBuffer = 32 << 10
)

// resumeIDRE is what ?resume= may hold (a session id; never a flag).
var resumeIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$`)

// paneMsg is one text frame from the browser: keystrokes or a resize.
type paneMsg struct {
	Type string `json:"type"` // "input" | "resize"
	Data string `json:"data,omitempty"`
	Cols uint16 `json:"cols,omitempty"`
	Rows uint16 `json:"rows,omitempty"`
}

// servePTY is GET /api/pty: a WebSocket (dashboard session + allow-listed
// Origin) running `hermes --home <home> chat [--resume ID]` in a PTY.
// Output goes to the browser as binary frames; text frames carry input and
// resizes. Closing the socket kills the child's process group.
func (d *Dashboard) servePTY(w http.ResponseWriter, r *http.Request) {
	if !d.gate.OriginAllowed(r.Header.Get("Origin")) {
		d.refuseHTTP(w, r, http.StatusForbidden, "terminal pane with a missing or foreign Origin")
		return
	}
	if _, _, ok := d.session(r); !ok {
		d.refuseHTTP(w, r, http.StatusUnauthorized, "terminal pane without a dashboard session")
		return
	}
	resume := r.URL.Query().Get("resume")
	if resume != "" && !resumeIDRE.MatchString(resume) {
		d.refuseHTTP(w, r, http.StatusBadRequest, "bad resume id")
		return
	}
	ctx, cred, done, err := d.ptys.add(r.Context())
	if err != nil {
		d.refuseHTTP(w, r, http.StatusServiceUnavailable, err.Error())
		return
	}
	defer done()
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true}) // Origin checked above
	if err != nil {
		return
	}
	ws.SetReadLimit(paneReadLimit)
	p, err := d.startChat(resume, winsize(r), cred)
	if err != nil {
		d.log.Warn("terminal pane did not start", "err", err.Error())
		_ = ws.Close(websocket.StatusInternalError, "could not start hermes chat")
		return
	}
	p.run(ctx, ws)
}

func winsize(r *http.Request) *pty.Winsize {
	cols, _ := strconv.ParseUint(r.URL.Query().Get("cols"), 10, 16)
	rows, _ := strconv.ParseUint(r.URL.Query().Get("rows"), 10, 16)
	if cols == 0 || rows == 0 {
		cols, rows = 100, 30
	}
	return &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}
}

// chatEnv is the child's whole environment: a minimal one plus the number
// of the descriptor that holds the pane's credential (not the credential).
func (d *Dashboard) chatEnv() []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	lang := os.Getenv("LANG")
	if lang == "" {
		lang = "C.UTF-8"
	}
	home, _ := os.UserHomeDir()
	return []string{"PATH=" + path, "HOME=" + home, "TERM=xterm-256color", "LANG=" + lang,
		InternalFDEnv + "=" + internalFDValue}
}

// pane is one running terminal: the child and the PTY master.
type pane struct {
	cmd    *exec.Cmd
	master *os.File // non-blocking (pollable), so Close interrupts a Read
}

func (d *Dashboard) startChat(resume string, size *pty.Winsize, cred auth.Secret) (*pane, error) {
	args := []string{"--home", d.cfg.Home, "chat"}
	if resume != "" {
		args = append(args, "--resume", resume)
	}
	credPipe, err := credentialPipe(cred)
	if err != nil {
		return nil, err
	}
	defer credPipe.Close() // the child holds its own copy once started
	cmd := exec.Command(d.cfg.Executable, args...)
	cmd.Env = d.chatEnv()
	cmd.Dir, _ = os.UserHomeDir()
	cmd.ExtraFiles = []*os.File{credPipe} // InternalFD in the child
	f, err := pty.StartWithAttrs(cmd, nil, &syscall.SysProcAttr{Setsid: true, Setctty: true})
	if err != nil {
		return nil, fmt.Errorf("start %s chat: %w", d.cfg.Executable, err)
	}
	master, err := pollable(f)
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return nil, err
	}
	p := &pane{cmd: cmd, master: master}
	p.resize(size.Cols, size.Rows)
	return p, nil
}

// credentialPipe returns the read end of a pipe that holds cred and then
// end of file: the write end is written and closed before the child starts
// (a credential is far below the pipe's buffer, so the write cannot block).
// Both ends are close-on-exec here; ExtraFiles re-opens the read end in the
// child only.
func credentialPipe(cred auth.Secret) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("terminal pane credential pipe: %w", err)
	}
	_, werr := w.WriteString(cred.Reveal())
	if cerr := w.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = r.Close()
		return nil, fmt.Errorf("write terminal pane credential: %w", werr)
	}
	return r, nil
}

// pollable re-opens the PTY master in non-blocking mode: creack/pty hands
// it over in blocking mode, where Close would not interrupt a pending Read.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return nil, fmt.Errorf("dup pty master: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("pty master non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), nil
}

func (p *pane) resize(cols, rows uint16) {
	if cols == 0 || rows == 0 {
		return
	}
	sc, err := p.master.SyscallConn()
	if err != nil {
		return
	}
	_ = sc.Control(func(fd uintptr) {
		_ = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols})
	})
}

// run pumps the pane until the socket closes, the child exits or ctx ends;
// then it kills the process group, closes the master, joins the output
// goroutine and reaps the child.
func (p *pane) run(ctx context.Context, ws *websocket.Conn) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make(chan struct{})
	go func() {
		defer close(out)
		defer cancel()
		p.copyOut(ctx, ws)
	}()
	p.copyIn(ctx, ws)
	cancel()
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	_ = p.master.Close()
	<-out
	_ = p.cmd.Wait()
	_ = ws.Close(websocket.StatusNormalClosure, "terminal ended")
}

// copyOut sends PTY output as binary frames until the child's side closes.
func (p *pane) copyOut(ctx context.Context, ws *websocket.Conn) {
	buf := make([]byte, paneReadBuffer)
	for {
		n, err := p.master.Read(buf)
		if n > 0 {
			if werr := ws.Write(ctx, websocket.MessageBinary, buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			_ = ws.Write(ctx, websocket.MessageText, []byte(`{"type":"exit"}`))
			return
		}
	}
}

// copyIn applies the browser's input and resize messages.
func (p *pane) copyIn(ctx context.Context, ws *websocket.Conn) {
	for {
		typ, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		if typ != websocket.MessageText {
			continue
		}
		var m paneMsg
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		switch m.Type {
		case "input":
			if _, err := p.master.Write([]byte(m.Data)); err != nil {
				return
			}
		case "resize":
			p.resize(m.Cols, m.Rows)
		}
	}
}

// ptys tracks the running panes so Close can end and join them, and holds
// each pane's internal credential.
//
// A credential belongs to one pane: minted by add, accepted by authorized
// while the pane runs, and revoked when its handler returns, so a
// credential read out of a pane (or out of a finished one) is worth nothing
// once that pane is gone, and no process-wide credential exists. It is not
// single-use: the pane's `hermes chat` re-presents it on every reconnect
// (its TUI redials after a dropped connection, internal/cli/chat_tui.go),
// and making it one-time would need a refresh exchange on the wire for
// little gain, since only the child ever holds it (read from an inherited
// pipe, never the environment; see InternalFDEnv).
type ptys struct {
	mu     sync.Mutex
	closed bool               // guarded by mu
	panes  map[*int]paneEntry // guarded by mu; one per running pane handler
	wg     sync.WaitGroup     // one per running pane handler
}

// paneEntry is one running pane's cancel and credential.
type paneEntry struct {
	cancel context.CancelFunc
	cred   auth.Secret
}

func newPTYs() *ptys { return &ptys{panes: map[*int]paneEntry{}} }

var errTooManyPanes = errors.New("too many terminal panes open")

// add registers a pane and mints its credential; done must be called when
// its handler returns (it revokes the credential).
func (p *ptys) add(parent context.Context) (context.Context, auth.Secret, func(), error) {
	tok, err := auth.NewSecretToken()
	if err != nil {
		return nil, auth.Secret{}, nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, auth.Secret{}, nil, errClosed
	}
	if len(p.panes) >= maxPanes {
		return nil, auth.Secret{}, nil, errTooManyPanes
	}
	ctx, cancel := context.WithCancel(parent)
	key := new(int)
	p.panes[key] = paneEntry{cancel: cancel, cred: auth.NewSecret(tok)}
	p.wg.Add(1)
	return ctx, auth.NewSecret(tok), func() {
		cancel()
		p.mu.Lock()
		delete(p.panes, key)
		p.mu.Unlock()
		p.wg.Done()
	}, nil
}

// authorized reports whether cred is the credential of a running pane. It
// compares against every pane (at most maxPanes) in constant time each.
func (p *ptys) authorized(cred string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	ok := false
	for _, e := range p.panes {
		if e.cred.Equal(cred) {
			ok = true
		}
	}
	return ok
}

// close cancels every pane and waits for their handlers.
func (p *ptys) close() {
	p.mu.Lock()
	p.closed = true
	for _, e := range p.panes {
		e.cancel()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
