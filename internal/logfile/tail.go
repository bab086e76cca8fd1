package logfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// PollInterval is how often a following Tail looks for new lines and for a
// rotation.
const PollInterval = 200 * time.Millisecond

// Tail copies the log at path to w and, when follow, keeps copying what is
// appended until ctx ends (then it returns nil). A follow survives
// rotation: when path is renamed to path.1 and a new path appears, the rest
// of the old file is copied, then the new file from its start; a truncated
// file is read again from its start. Without follow, a missing log is an
// error wrapping fs.ErrNotExist; with follow, Tail waits for it to appear.
func Tail(ctx context.Context, path string, follow bool, w io.Writer) error {
	return TailLines(ctx, path, 0, follow, w)
}

// TailLines is Tail starting at the last n lines of the current file
// (n <= 0: the whole file), like tail -n N [-f].
func TailLines(ctx context.Context, path string, n int, follow bool, w io.Writer) error {
	t := &tailer{path: path, w: w}
	defer func() {
		if t.f != nil {
			_ = t.f.Close()
		}
	}()
	if err := t.open(); err != nil {
		if !follow || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	} else if err := t.seekLastLines(n); err != nil {
		return err
	}
	if err := t.copy(); err != nil || !follow {
		return err
	}
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if err := t.poll(); err != nil {
			return err
		}
	}
}

// tailer is the state of one Tail.
type tailer struct {
	path string
	w    io.Writer
	f    *os.File // the file being read; nil while path does not exist
	off  int64    // read offset in f
}

func (t *tailer) open() error {
	f, err := os.Open(t.path)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	t.f, t.off = f, 0
	return nil
}

// copy copies f from off to its current end.
func (t *tailer) copy() error {
	if t.f == nil {
		return nil
	}
	n, err := io.Copy(t.w, io.NewSectionReader(t.f, t.off, 1<<62))
	t.off += n
	if err != nil {
		return fmt.Errorf("read log: %w", err)
	}
	return nil
}

// poll copies new bytes and switches to a new file after a rotation.
func (t *tailer) poll() error {
	if t.f == nil {
		if err := t.open(); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		return t.copy()
	}
	if fi, err := t.f.Stat(); err == nil && fi.Size() < t.off {
		t.off = 0 // truncated in place
	}
	if err := t.copy(); err != nil {
		return err
	}
	cur, err := os.Stat(t.path)
	if err != nil {
		return nil // between the rename and the new file: look again later
	}
	if old, err := t.f.Stat(); err == nil && os.SameFile(old, cur) {
		return nil
	}
	_ = t.f.Close() // rotated: the rest of the old file was copied above
	if err := t.open(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			t.f = nil
			return nil
		}
		return err
	}
	return t.copy()
}

// seekLastLines moves off to the start of the last n lines of f.
func (t *tailer) seekLastLines(n int) error {
	if n <= 0 {
		return nil
	}
	fi, err := t.f.Stat()
	if err != nil {
		return fmt.Errorf("read log: %w", err)
	}
	end := fi.Size()
	const chunk = 64 << 10
	lines := 0
	buf := make([]byte, chunk)
	for pos := end; pos > 0; {
		size := min(int64(chunk), pos)
		pos -= size
		if _, err := t.f.ReadAt(buf[:size], pos); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read log: %w", err)
		}
		b := buf[:size]
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] != '\n' || pos+int64(i) == end-1 {
				continue // the final newline ends the last line, it does not start one
			}
			if lines++; lines == n {
				t.off = pos + int64(i) + 1
				return nil
			}
		}
	}
	t.off = 0
	return nil
}
