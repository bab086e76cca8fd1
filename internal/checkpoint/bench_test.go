package checkpoint

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSnapshot10k is the added time of a checkpointed turn: a
// snapshot of a 10,000-file tree with 10 files changed since the last one.
// p50-ms is the median snapshot (the goal is ≤ 50 ms).
func BenchmarkSnapshot10k(b *testing.B) {
	e, err := New(filepath.Join(b.TempDir(), "checkpoints"))
	if err != nil {
		b.Skip(err)
	}
	cwd := b.TempDir()
	for i := range 10000 {
		write(b, cwd, fmt.Sprintf("d%02d/f%04d.txt", i%100, i), fmt.Sprintf("file %d\n", i))
	}
	ctx := context.Background()
	if _, err := e.Snapshot(ctx, cwd, 10<<20); err != nil {
		b.Fatal(err)
	}
	var took []time.Duration
	cpu0 := cpuTime()
	b.ResetTimer()
	for n := range b.N {
		b.StopTimer()
		for i := range 10 {
			write(b, cwd, fmt.Sprintf("d%02d/f%04d.txt", i, i*100+i), fmt.Sprintf("change %d %d\n", n, i))
		}
		b.StartTimer()
		start := time.Now()
		if _, err := e.Snapshot(ctx, cwd, 10<<20); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	reportP50(b, took)
	reportCPU(b, cpu0)
}

// BenchmarkSnapshotFresh10k is the first snapshot of a 10,000-file tree.
func BenchmarkSnapshotFresh10k(b *testing.B) {
	cwd := b.TempDir()
	for i := range 10000 {
		write(b, cwd, fmt.Sprintf("d%02d/f%04d.txt", i%100, i), fmt.Sprintf("file %d\n", i))
	}
	var took []time.Duration
	cpu0 := cpuTime()
	for range b.N {
		e, err := New(filepath.Join(b.TempDir(), "checkpoints"))
		if err != nil {
			b.Skip(err)
		}
		start := time.Now()
		if _, err := e.Snapshot(context.Background(), cwd, 10<<20); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	reportP50(b, took)
	reportCPU(b, cpu0)
}

// BenchmarkCheckpointedTurn10k is what a checkpointed turn adds on a
// 10,000-file tree where the turn changes 10 files: before its first
// mutating tool call, a snapshot and the ref that keeps it (p50-ms, the
// wait the turn sees); after the turn, the ledger's snapshot and ref and
// the size the pruning reads (p50-end-ms, after the turn's last call).
func BenchmarkCheckpointedTurn10k(b *testing.B) {
	e, err := New(filepath.Join(b.TempDir(), "checkpoints"))
	if err != nil {
		b.Skip(err)
	}
	cwd := b.TempDir()
	for i := range 10000 {
		write(b, cwd, fmt.Sprintf("d%02d/f%04d.txt", i%100, i), fmt.Sprintf("file %d\n", i))
	}
	ctx := context.Background()
	if _, err := e.Snapshot(ctx, cwd, 10<<20); err != nil {
		b.Fatal(err)
	}
	var before, after []time.Duration
	b.ResetTimer()
	for n := range b.N {
		start := time.Now()
		s, err := e.Snapshot(ctx, cwd, 10<<20)
		if err == nil {
			err = e.Keep(ctx, cwd, fmt.Sprintf("ckpt-%d/snap", n), s.Commit)
		}
		if err != nil {
			b.Fatal(err)
		}
		before = append(before, time.Since(start))
		b.StopTimer()
		for i := range 10 {
			write(b, cwd, fmt.Sprintf("d%02d/f%04d.txt", i, i*100+i), fmt.Sprintf("turn %d %d\n", n, i))
		}
		b.StartTimer()
		start = time.Now()
		l, err := e.Snapshot(ctx, cwd, 10<<20)
		if err == nil {
			err = e.Keep(ctx, cwd, fmt.Sprintf("ckpt-%d/ledger", n), l.Commit)
		}
		if err == nil {
			_, err = e.Size()
		}
		if err != nil {
			b.Fatal(err)
		}
		after = append(after, time.Since(start))
	}
	b.StopTimer()
	reportP50(b, before)
	slices.Sort(after)
	b.ReportMetric(float64(after[len(after)/2].Microseconds())/1000, "p50-end-ms")
}

func reportP50(b *testing.B, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
}

// cpuTime is the CPU time (user and system) of this process and of its
// waited-for children: the git processes. Unlike wall time it hardly moves
// with the load of a shared machine.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	d := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return d(self.Utime) + d(self.Stime) + d(kids.Utime) + d(kids.Stime)
}

func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64((cpuTime()-since).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
