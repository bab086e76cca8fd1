// Package logfile is the gateway's log file: a writer that rotates by size
// (gateway.log → gateway.log.1 → … → gateway.log.<keep>, the oldest
// removed) and Tail, which prints the log and follows it across those
// rotations (`hermes gateway logs [-f]`).
//
// It imports nothing internal and must never import config or daemon:
// logging.max_mb and logging.keep reach it as the two numbers Open takes.
//
// Every file is owner-only (0600), whatever the umask. A Writer is safe for
// concurrent use; each Write lands whole in one file (a record is never
// split across a rotation). One process writes a log: the daemon's home
// lock guarantees it for gateway.log.
package logfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"sync"
)

// Defaults of logging.max_mb and logging.keep.
const (
	DefaultMaxBytes = 10 << 20
	DefaultKeep     = 3
)

// Writer appends to a log file and rotates it when a write would take it
// past its size limit.
type Writer struct {
	path string

	mu       sync.Mutex
	f        *os.File // guarded by mu; nil after Close
	size     int64    // guarded by mu: bytes in f
	maxBytes int64    // guarded by mu; > 0
	keep     int      // guarded by mu; >= 0 rotated files kept
}

// Open opens (creating, 0600) the log at path for appending. maxBytes <= 0
// means DefaultMaxBytes; keep < 0 means DefaultKeep, 0 keeps no rotated
// file (the log starts over).
func Open(path string, maxBytes int64, keep int) (*Writer, error) {
	w := &Writer{path: path}
	w.setLimits(maxBytes, keep)
	if err := w.openLocked(); err != nil {
		return nil, err
	}
	return w, nil
}

// SetLimits changes the limits (after config.yaml is read: the log opens
// before it); the next write that crosses the new limit rotates.
func (w *Writer) SetLimits(maxBytes int64, keep int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.setLimits(maxBytes, keep)
}

func (w *Writer) setLimits(maxBytes int64, keep int) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if keep < 0 {
		keep = DefaultKeep
	}
	w.maxBytes, w.keep = maxBytes, keep
}

// Write appends p, rotating first when p would take a non-empty file past
// the limit (a single record larger than the limit gets a file of its own).
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return 0, fs.ErrClosed
	}
	if w.size > 0 && w.size+int64(len(p)) > w.maxBytes {
		if err := w.rotateLocked(); err != nil {
			return 0, err
		}
	}
	n, err := w.f.Write(p)
	w.size += int64(n)
	return n, err
}

// Close closes the current file. Later writes fail with fs.ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// openLocked opens w.path for appending and learns its size.
func (w *Writer) openLocked() error {
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = f.Chmod(0o600) // an existing file keeps its mode otherwise
	}
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("open log: %w", err)
	}
	w.f, w.size = f, fi.Size()
	return nil
}

// rotateLocked shifts path.i → path.i+1 (the oldest, path.keep, is
// replaced), path → path.1, and opens a new path. If a rename fails the
// current file stays open and the error is returned (the write fails, the
// log keeps working).
func (w *Writer) rotateLocked() error {
	if w.keep == 0 {
		if err := w.f.Truncate(0); err != nil {
			return fmt.Errorf("rotate log: %w", err)
		}
		w.size = 0
		return nil
	}
	for i := w.keep - 1; i >= 1; i-- {
		if err := os.Rename(Rotated(w.path, i), Rotated(w.path, i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("rotate log: %w", err)
		}
	}
	if err := os.Rename(w.path, Rotated(w.path, 1)); err != nil {
		return fmt.Errorf("rotate log: %w", err)
	}
	old := w.f
	if err := w.openLocked(); err != nil {
		return err // old stays open: it is now path.1
	}
	_ = old.Close()
	return nil
}

// Rotated is the name of the i-th rotated file of path (path.i; 1 is the
// newest).
func Rotated(path string, i int) string { return path + "." + strconv.Itoa(i) }
