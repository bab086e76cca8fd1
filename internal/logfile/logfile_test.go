package logfile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hermes-gateway/hermes/internal/gatewaytest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestFloodRotates: concurrent writers flood a small log. Every file stays
// under the limit, owner-only, at most keep rotated files exist, and every
// line of the newest files is whole (no record split by a rotation).
func TestFloodRotates(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gateway.log")
	const maxBytes, keep = 4096, 3
	w, err := Open(path, maxBytes, keep)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				line := fmt.Sprintf(`{"writer":%d,"i":%d,"pad":"%s"}`+"\n", g, i, strings.Repeat("x", i%50))
				if _, err := w.Write([]byte(line)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(path + "*")
	if len(files) != keep+1 {
		t.Errorf("files %v, want the log and %d rotated", files, keep)
	}
	if _, err := os.Stat(Rotated(path, keep+1)); !os.IsNotExist(err) {
		t.Errorf("%s exists: want at most %d rotated files", Rotated(path, keep+1), keep)
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > maxBytes {
			t.Errorf("%s is %d bytes, over the %d limit", f, fi.Size(), maxBytes)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", f, fi.Mode().Perm())
		}
		b, _ := os.ReadFile(f)
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if l := sc.Text(); !strings.HasPrefix(l, `{"writer":`) || !strings.HasSuffix(l, `"}`) {
				t.Fatalf("%s: torn line %q", f, l)
			}
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			t.Errorf("%s does not end with a whole line", f)
		}
	}
}

// TestReopenKeepsSizeAndMode: a reopened log continues its size count and
// a file left group-readable becomes 0600.
func TestReopenKeepsSizeAndMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gateway.log")
	if err := os.WriteFile(path, []byte(strings.Repeat("a", 90)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after Open, want 0600", fi.Mode().Perm())
	}
	if _, err := w.Write([]byte("0123456789\n")); err != nil { // 91 + 11 > 100
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "0123456789\n" {
		t.Errorf("log after rotation %q, want only the new line", b)
	}
	if b, _ := os.ReadFile(Rotated(path, 1)); len(b) != 91 {
		t.Errorf("%s holds %d bytes, want the old 91", Rotated(path, 1), len(b))
	}
}

func TestKeepZeroStartsOver(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gateway.log")
	w, err := Open(path, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, s := range []string{"12345678\n", "abcdefgh\n"} {
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "abcdefgh\n" {
		t.Errorf("log %q, want only the last line", b)
	}
	if files, _ := filepath.Glob(path + ".*"); len(files) != 0 {
		t.Errorf("rotated files %v with keep 0", files)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func await(t *testing.T, cond func() bool) {
	t.Helper()
	gatewaytest.Await(t, 10*time.Second, cond)
}

// TestTailFollowsAcrossRotation: a follower sees every line exactly once
// and in order while the writer rotates several times under it.
func TestTailFollowsAcrossRotation(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gateway.log")
	w, err := Open(path, 200, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	fmt.Fprintf(w, "line %03d\n", 0)
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- Tail(ctx, path, true, out) }()
	await(t, func() bool { return strings.Contains(out.String(), "line 000") })
	var want strings.Builder
	want.WriteString("line 000\n")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(w, "line %03d\n", i)
		fmt.Fprintf(&want, "line %03d\n", i)
		if i%10 == 0 { // let the follower see each file before it is rotated away twice
			await(t, func() bool { return strings.Contains(out.String(), fmt.Sprintf("line %03d", i)) })
		}
	}
	await(t, func() bool { return strings.Contains(out.String(), "line 060") })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != want.String() {
		t.Errorf("followed output:\n%s\nwant:\n%s", got, want.String())
	}
	if _, err := os.Stat(Rotated(path, 1)); err != nil {
		t.Errorf("the test did not rotate: %v", err)
	}
}

func TestTailLinesAndMissing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "gateway.log")
	if err := Tail(context.Background(), path, false, &bytes.Buffer{}); !os.IsNotExist(err) && !strings.Contains(fmt.Sprint(err), "no such file") {
		t.Errorf("missing log: %v, want not-exist", err)
	}
	if err := os.WriteFile(path, []byte("a\nb\nc\nd\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]string{0: "a\nb\nc\nd\n", 2: "c\nd\n", 4: "a\nb\nc\nd\n", 9: "a\nb\nc\nd\n"} {
		var b bytes.Buffer
		if err := TailLines(context.Background(), path, n, false, &b); err != nil || b.String() != want {
			t.Errorf("TailLines(%d) = %q, %v; want %q", n, b.String(), err, want)
		}
	}
}

// TestTailWaitsForLog: following a log that does not exist yet prints it
// once it appears.
func TestTailWaitsForLog(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "gateway.log")
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- Tail(ctx, path, true, out) }()
	if err := os.WriteFile(path, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	await(t, func() bool { return out.String() == "hello\n" })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
