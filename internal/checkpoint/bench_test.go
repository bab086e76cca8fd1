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
