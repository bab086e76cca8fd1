package checkpoint

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkSnapshot10k is the added time of a checkpointed turn: a
// snapshot of a 10,000-file tree with 10 files changed since the last one.
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
	b.ResetTimer()
	for n := range b.N {
		b.StopTimer()
		for i := range 10 {
			write(b, cwd, fmt.Sprintf("d%02d/f%04d.txt", i, i*100+i), fmt.Sprintf("change %d %d\n", n, i))
		}
		b.StartTimer()
		if _, err := e.Snapshot(ctx, cwd, 10<<20); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotFresh10k is the first snapshot of a 10,000-file tree.
func BenchmarkSnapshotFresh10k(b *testing.B) {
	cwd := b.TempDir()
	for i := range 10000 {
		write(b, cwd, fmt.Sprintf("d%02d/f%04d.txt", i%100, i), fmt.Sprintf("file %d\n", i))
	}
	for range b.N {
		e, err := New(filepath.Join(b.TempDir(), "checkpoints"))
		if err != nil {
			b.Skip(err)
		}
		if _, err := e.Snapshot(context.Background(), cwd, 10<<20); err != nil {
			b.Fatal(err)
		}
	}
}
