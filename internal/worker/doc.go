// Package worker runs a turn in an isolated process: the daemon side (Run)
// starts `hermes worker` with a fresh environment and proxies the worker's
// callbacks to a Host; the worker side (Serve) runs agent.Run with the real
// model client and tools whose gateway callbacks travel over the pipe. It is
// how safe_mode sessions (docs/protocol.md#safe-mode) run every turn without access to the
// daemon's environment or credentials: the only secret a worker sees is the
// API key the daemon chose for the turn, and it arrives over stdin.
//
// It may import only agent, model, tools, protocol and sandbox, and must
// never import authority, store or config: the daemon side talks to the Host
// the authority implements, and the worker side receives everything in its
// Spec over stdin, so a worker process holds nothing of the daemon's.
//
// # Process
//
// The worker is started from argv with exactly PATH=/usr/local/bin:/usr/bin:/bin,
// HOME, LANG and TMPDIR in its environment, in the session's cwd, in a
// process group of its own, with Pdeathsig SIGKILL (it dies with the
// daemon's thread that started it). Its pid is reported to Host.Started
// before anything else and to Host.Exited after it is reaped, so the control
// socket treats it and its descendants as tool processes.
//
// # Protocol
//
// Newline-delimited JSON, one object per line, both ways. The first line on
// stdin is the Spec. After it every line is a frame {"kind": K, "id": N?, …}:
//
//	worker → daemon
//	  message        id, message (OpenAI shape), reasoning   request: answer {error?}
//	  approve        id, approval {command,description,pattern}   request: answer {allowed, error?}
//	  ask            id, question {question,choices,multi_select}  request: answer {answer, error?}
//	  text           delta
//	  reasoning      delta
//	  tool_start     call_id, name, args
//	  tool_complete  call_id, name, output, is_error
//	  ui             ui_kind, payload
//	  started        pid            a tool process inside the worker
//	  exited         pid
//	  result         result {text, usage, outcome, error?, rounds, max_turns_reached?}   last frame
//	daemon → worker
//	  answer         id, allowed | answer, error?
//	  cancel         interrupt the turn
//
// Ids are chosen by the worker, increase from 1, and are answered exactly
// once unless the request was withdrawn (see below). A message is a request
// so that the transcript is written before the turn goes on, and a store
// error fails the turn exactly as it does in process. After the result frame
// the daemon closes stdin and the worker exits; a worker keeps reading stdin
// until EOF and ignores answers to ids it no longer waits for.
//
// # Failure semantics
//
//   - Interrupt: when Run's ctx ends the daemon sends cancel and withdraws its
//     pending approve/ask (no answer is sent; the worker's own cancellation
//     ends the wait). The worker's turn ends "interrupted" and it sends its
//     result. A worker that has not sent its result within killGrace (5s) is
//     killed with its process group; the outcome is "interrupted".
//   - Worker death: stdout EOF without a result frame ends the turn "failed"
//     (or "interrupted" if ctx had ended) with the exit status and the last
//     4 KiB of stderr in Err. Pending requests are withdrawn.
//   - Garbage: a line that is not JSON, is longer than 32 MiB, has an unknown
//     kind, or lacks what its kind needs ends the turn "failed" with a
//     protocol error, and the worker's group is killed at once.
//   - Daemon gone: stdin EOF (or garbage on stdin) interrupts the worker's
//     turn, fails its pending requests, and the worker exits after trying to
//     write its result. A failed write to stdout does the same.
//   - A result whose exit then takes longer than killGrace is kept; the
//     worker is killed.
//
// Run never returns before the worker is reaped and every goroutine it
// started has exited; Serve returns after its stdin reader has ended.
// Neither logs; the API key is never in argv, the environment, an error or
// a log line (Spec.LogValue redacts it).
package worker
