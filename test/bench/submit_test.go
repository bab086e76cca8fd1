package bench

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-gateway/hermes/internal/client"
	"github.com/hermes-gateway/hermes/internal/modeltest"
	"github.com/hermes-gateway/hermes/internal/protocol"
)

const (
	// warmup operations of each kind run before measuring (statement
	// caches, WAL growth, first-connection costs).
	warmup = 20
	// depthCap bounds the queue of a session in the submit benchmarks: every
	// prompt.submit journals a session.info event that lists every pending
	// admission (see BenchmarkSubmitQueueDepth), so a benchmark that kept
	// queueing into one session would measure its own b.N. After depthCap
	// submits the benchmark moves to a fresh session (prepared untimed).
	depthCap = 16
)

// submitFixture is a daemon with a pool of sessions whose FIFO is blocked:
// each has one turn held in the fake model, so a prompt.submit only admits
// (durable queued row + journal event + fan-out), never executes.
type submitFixture struct {
	g     *gateway
	raw   *rawDB
	bar   *modeltest.Barrier
	conns []*client.Client
	cwd   string
	held  int // turns held in the model so far
}

func newSubmitFixture(b *testing.B, conns int) *submitFixture {
	b.Helper()
	m, bar := heldModel(b)
	home := benchHome(b)
	writeConfig(b, home, m.URL(), "")
	f := &submitFixture{g: startGateway(b, home), raw: openRaw(b), bar: bar, cwd: benchHome(b)}
	for range conns {
		f.conns = append(f.conns, f.g.connect(b))
	}
	return f
}

// blockedSession creates a session on conns[on[0]], resumes it on the other
// connections of on, and waits until its first turn is held in the model.
func (f *submitFixture) blockedSession(b *testing.B, on ...int) string {
	b.Helper()
	sid := createSession(b, f.conns[on[0]], "submit-"+strconv.Itoa(f.held), f.cwd, []string{})
	for _, w := range on[1:] {
		resumeSession(b, f.conns[w], sid)
	}
	ctx, cancel := callCtx()
	defer cancel()
	if _, err := submit(ctx, f.conns[on[0]], sid, "block", "hold the FIFO"); err != nil {
		b.Fatal(err)
	}
	f.held++
	if err := f.bar.AwaitWaiting(ctx, f.held); err != nil {
		b.Fatalf("turn did not reach the model: %v", err)
	}
	return sid
}

// pool prepares ceil(n/depthCap) blocked sessions attached to every
// connection in on.
func (f *submitFixture) pool(b *testing.B, n int, on ...int) []string {
	sids := make([]string, 0, n/depthCap+1)
	for range (n + depthCap - 1) / depthCap {
		sids = append(sids, f.blockedSession(b, on...))
	}
	return sids
}

// submit is one timed prompt.submit on connection w.
func (f *submitFixture) submit(w int, sid, id string) (time.Duration, protocol.Receipt, error) {
	ctx, cancel := callCtx()
	defer cancel()
	start := time.Now()
	r, err := submit(ctx, f.conns[w], sid, id, submitText)
	took := time.Since(start)
	if err == nil && r.Status != protocol.StatusQueued {
		err = fmt.Errorf("submit %s: status %s, want queued", id, r.Status)
	}
	return took, r, err
}

// close releases the held turns and stops the daemon.
func (f *submitFixture) close(b *testing.B) {
	f.bar.Release()
	f.g.shutdown(b)
}

// BenchmarkSubmitVsRaw: one op = one raw INSERT+COMMIT followed by one
// durable prompt.submit over a real WebSocket (one connection, distinct
// submission ids, at most depthCap queued per session), interleaved so that
// both see the same disk at the same time. ns/op is the pair; the figures
// are the percentiles of each kind and their ratios (goal: submit/raw ≤ 1.5).
func BenchmarkSubmitVsRaw(b *testing.B) {
	f := newSubmitFixture(b, 1)
	if mode, sync := f.raw.pragmas(b); mode != "wal" || sync != 2 {
		b.Fatalf("raw baseline runs journal_mode=%s synchronous=%d, want wal/2 (FULL)", mode, sync)
	}
	sids := f.pool(b, warmup+b.N, 0)
	op := func(i int, id string) time.Duration {
		d, _, err := f.submit(0, sids[i/depthCap], id)
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	for i := range warmup {
		f.raw.timedInsert(b, 0)
		op(i, "warm-"+strconv.Itoa(i))
	}
	var raw, sub latencies
	b.ResetTimer()
	for i := range b.N {
		raw.add(f.raw.timedInsert(b, 0))
		sub.add(op(warmup+i, "op-"+strconv.Itoa(i)))
	}
	b.StopTimer()
	f.close(b)
	raw.report(b, "raw")
	sub.report(b, "submit")
	b.ReportMetric(ratio(sub.q(0.5), raw.q(0.5)), "submit/raw-p50")
	b.ReportMetric(ratio(sub.q(0.99), raw.q(0.99)), "submit/raw-p99")
}

// BenchmarkSubmitConcurrent: 8 submitters on 8 connections, each into its
// own sessions ("sessions=8": 8 FIFOs at any time) or all into the same
// session ("sessions=1": the 8 connections share one FIFO; depthCap still
// applies). The raw baseline runs the same number of inserts from 8
// goroutines on its one connection first, in the same run. One op = one
// submit; figures: throughput of both, p50/p99 of both, and the ratios.
func BenchmarkSubmitConcurrent(b *testing.B) {
	for _, sessions := range []int{8, 1} {
		b.Run("sessions="+strconv.Itoa(sessions), func(b *testing.B) { benchSubmitConcurrent(b, sessions) })
	}
}

func benchSubmitConcurrent(b *testing.B, sessions int) {
	const workers = 8
	f := newSubmitFixture(b, workers)
	// target(w, i) is the session worker w submits its op i (global index)
	// to; k is the worker's own op count.
	var target func(w, i, k int) string
	if sessions == 1 {
		all := make([]int, workers)
		for w := range all {
			all[w] = w
		}
		shared := f.pool(b, b.N+workers*warmup, all...)
		target = func(_, i, _ int) string { return shared[min(i/depthCap, len(shared)-1)] }
	} else {
		own := make([][]string, workers)
		for w := range own {
			own[w] = f.pool(b, b.N+warmup, w) // a worker may do up to all ops
		}
		target = func(w, _, k int) string { return own[w][k/depthCap] }
	}
	var counts [workers]int // per-worker op counts; each index owned by its worker
	op := func(prefix string) func(w, i int) (time.Duration, error) {
		return func(w, i int) (time.Duration, error) {
			sid := target(w, i, counts[w])
			counts[w]++
			d, _, err := f.submit(w, sid, prefix+strconv.Itoa(i))
			return d, err
		}
	}
	if _, _, err := runWorkers(workers*warmup, workers, op("warm-")); err != nil {
		b.Fatal(err)
	}
	raw, rawTook, err := runWorkers(b.N, workers, func(w, i int) (time.Duration, error) {
		start := time.Now()
		err := f.raw.insert(context.Background(), "raw-"+strconv.Itoa(i))
		return time.Since(start), err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	sub, subTook, err := runWorkers(b.N, workers, op("op-"))
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	f.close(b)
	rawRate, subRate := float64(b.N)/rawTook.Seconds(), float64(b.N)/subTook.Seconds()
	b.ReportMetric(rawRate, "raw-ops/s")
	b.ReportMetric(subRate, "submit-ops/s")
	raw.report(b, "raw")
	sub.report(b, "submit")
	b.ReportMetric(rawRate/subRate, "raw/submit-throughput")
	b.ReportMetric(ratio(sub.q(0.5), raw.q(0.5)), "submit/raw-p50")
	b.ReportMetric(ratio(sub.q(0.99), raw.q(0.99)), "submit/raw-p99")
}

// BenchmarkSubmitQueueDepth measures prompt.submit into one session that
// already has depth queued admissions. Each op is a timed submit followed by
// an untimed prompt.cancel of that admission, so the depth stays put. It
// shows the admission cost growing with the queue: the session.info event
// of every submit carries the whole pending list (read, marshalled and
// journaled inside the write transaction).
func BenchmarkSubmitQueueDepth(b *testing.B) {
	for _, depth := range []int{0, 64, 256} {
		b.Run("depth="+strconv.Itoa(depth), func(b *testing.B) { benchSubmitDepth(b, depth) })
	}
}

func benchSubmitDepth(b *testing.B, depth int) {
	f := newSubmitFixture(b, 1)
	sid := f.blockedSession(b, 0)
	for i := range depth {
		if _, _, err := f.submit(0, sid, "fill-"+strconv.Itoa(i)); err != nil {
			b.Fatal(err)
		}
	}
	var sub latencies
	b.ResetTimer()
	for i := range b.N {
		d, r, err := f.submit(0, sid, "op-"+strconv.Itoa(i))
		if err != nil {
			b.Fatal(err)
		}
		sub.add(d)
		b.StopTimer()
		ctx, cancel := callCtx()
		_, err = f.conns[0].Cancel(ctx, protocol.AdmissionParams{SessionID: sid, AdmissionID: r.AdmissionID})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	f.close(b)
	sub.report(b, "submit")
}

// runWorkers runs n operations on workers goroutines (closed loop: a worker
// starts its next op when the previous one returned). op gets the worker
// index and a global op index; the first error stops everything.
func runWorkers(n, workers int, op func(w, i int) (time.Duration, error)) (latencies, time.Duration, error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all latencies
	var first error
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine latencies
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				d, err := op(w, i)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					next.Store(int64(n)) // stop the others
					break
				}
				mine.add(d)
			}
			mu.Lock()
			all.merge(mine)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return all, time.Since(start), first
}
