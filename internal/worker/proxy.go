package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hermes-gateway/hermes/internal/agent"
	"github.com/hermes-gateway/hermes/internal/model"
	"github.com/hermes-gateway/hermes/internal/tools"
)

// proxy is the daemon side of one worker conversation: it reads the
// worker's frames, calls the Host, and answers requests. It is transport
// agnostic: Run gives it a process's pipes, tests give it io.Pipes.
type proxy struct {
	host  Host
	enc   *encoder  // to the worker's stdin
	stdin io.Closer // closing it tells the worker to exit (after a result)

	frames chan lineOrErr // from readLoop
	done   chan struct{}  // closed by stop: readLoop must not block on frames
	reader sync.WaitGroup // readLoop

	reqCtx    context.Context // for Approve/Ask; cancelled by stop
	reqCancel context.CancelFunc
	reqs      sync.WaitGroup // one goroutine per pending approve/ask

	last string // content of the last assistant message seen; loop only
}

type lineOrErr struct {
	line []byte
	err  error
}

// startProxy starts the goroutine reading stdout. The caller must call
// stop, then end the worker (so stdout reaches EOF), then joinReader.
func startProxy(ctx context.Context, host Host, stdin io.WriteCloser, stdout io.Reader) *proxy {
	p := &proxy{host: host, enc: newEncoder(stdin), stdin: stdin,
		frames: make(chan lineOrErr), done: make(chan struct{})}
	p.reqCtx, p.reqCancel = context.WithCancel(ctx)
	p.reader.Add(1)
	go func() {
		defer p.reader.Done()
		p.readLoop(newLineReader(stdout, maxWorkerFrame))
	}()
	return p
}

// readLoop forwards lines until an error (EOF included), which it forwards
// last.
func (p *proxy) readLoop(lines *lineReader) {
	for {
		line, err := lines.next()
		select {
		case p.frames <- lineOrErr{line, err}:
		case <-p.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// stop withdraws pending requests, closes the worker's stdin (the worker
// exits once it has sent its result) and lets readLoop end.
func (p *proxy) stop() {
	p.reqCancel()
	_ = p.stdin.Close()
	close(p.done)
	p.reqs.Wait()
}

// joinReader waits for readLoop; stdout must be closed or at EOF.
func (p *proxy) joinReader() { p.reader.Wait() }

// ending is how a conversation ended.
type ending struct {
	res  agent.Result
	ok   bool // res came from the worker (or is final); else see kill/died
	kill bool // the worker must be killed now (garbage, no exit after cancel)
}

// converse sends spec and serves the worker until its result, its death,
// garbage, or — after ctx ends and cancel was sent — the grace period.
func (p *proxy) converse(ctx context.Context, spec Spec, grace time.Duration) ending {
	if err := p.enc.write(spec); err != nil {
		return ending{} // the worker is already gone: its exit tells why
	}
	ctxDone := ctx.Done()
	var deadline <-chan time.Time
	for {
		select {
		case <-ctxDone:
			ctxDone = nil
			_ = p.enc.write(frame{Kind: kindCancel}) // a dead worker shows as EOF
			t := time.NewTimer(grace)
			defer t.Stop()
			deadline = t.C
		case <-deadline:
			err := fmt.Errorf("turn interrupted: the worker did not stop within %s of cancel; killed", grace)
			return ending{res: p.partial(agent.OutcomeInterrupted, err), ok: true, kill: true}
		case in := <-p.frames:
			if in.err != nil {
				return p.readFailed(in.err)
			}
			if end, over := p.handle(ctx, in.line); over {
				return end
			}
		}
	}
}

func (p *proxy) readFailed(err error) ending {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return ending{} // died: Run adds the exit status and stderr
	}
	return ending{res: p.partial(agent.OutcomeFailed, fmt.Errorf("worker: %w", err)), ok: true, kill: true}
}

// handle serves one line; over reports the end of the conversation.
func (p *proxy) handle(ctx context.Context, line []byte) (ending, bool) {
	f, err := decodeFrame(line, validWorkerFrame)
	if err != nil {
		return ending{res: p.partial(agent.OutcomeFailed, fmt.Errorf("worker: %w", err)), ok: true, kill: true}, true
	}
	switch f.Kind {
	case kindResult:
		return ending{res: fromWire(f.Result), ok: true}, true
	case kindMessage:
		p.message(ctx, f)
	case kindApprove, kindAsk:
		p.request(f)
	default:
		p.notify(f)
	}
	return ending{}, false
}

// message records one message, then answers so the worker goes on.
func (p *proxy) message(ctx context.Context, f frame) {
	m := *f.Message
	m.Reasoning = f.Reasoning
	a := frame{Kind: kindAnswer, ID: f.ID}
	if err := p.host.Message(context.WithoutCancel(ctx), m); err != nil {
		a.Error = err.Error()
	}
	if m.Role == model.RoleAssistant {
		p.last = m.Content
	}
	_ = p.enc.write(a)
}

func (p *proxy) notify(f frame) {
	switch f.Kind {
	case kindText:
		p.host.Text(f.Delta)
	case kindReasoning:
		p.host.Reasoning(f.Delta)
	case kindToolStart:
		p.host.ToolStart(f.CallID, f.Name, f.Args)
	case kindToolComplete:
		p.host.ToolComplete(f.CallID, f.Name, tools.Result{Output: f.Output, IsError: f.IsError})
	case kindUI:
		p.host.UIEvent(f.UIKind, f.Payload)
	case kindStarted:
		p.host.Started(f.PID)
	case kindExited:
		p.host.Exited(f.PID)
	}
}

// request runs an approve or ask on its own goroutine: a human may take
// long, and the loop must keep watching ctx and the worker meanwhile. When
// the request was withdrawn (interrupt, worker gone) nothing is answered:
// the worker learns from cancel or does not exist any more.
func (p *proxy) request(f frame) {
	p.reqs.Add(1)
	go func() {
		defer p.reqs.Done()
		a := p.ask(f)
		if p.reqCtx.Err() != nil {
			return
		}
		_ = p.enc.write(a)
	}()
}

func (p *proxy) ask(f frame) frame {
	a := frame{Kind: kindAnswer, ID: f.ID}
	var err error
	if f.Kind == kindApprove {
		req := tools.ApprovalRequest{Command: f.Approval.Command, Description: f.Approval.Description, Pattern: f.Approval.Pattern}
		a.Allowed, err = p.host.Approve(p.reqCtx, req)
	} else {
		q := tools.Question{Question: f.Question.Question, Choices: f.Question.Choices, MultiSelect: f.Question.MultiSelect}
		a.Answer, err = p.host.Ask(p.reqCtx, q)
	}
	if err != nil {
		a.Allowed, a.Answer, a.Error = false, "", err.Error()
	}
	return a
}

// partial is a result the daemon makes up: what the worker said so far.
func (p *proxy) partial(outcome string, err error) agent.Result {
	return agent.Result{Text: p.last, Outcome: outcome, Err: err}
}
