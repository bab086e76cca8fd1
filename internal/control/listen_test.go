package control

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestSocketAndDirModes(t *testing.T) {
	t.Parallel()
	srv, path := startServer(t, newFakeHandler(), Options{})
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode = %v, want socket 0600", fi.Mode())
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %v, want 0700", di.Mode().Perm())
	}
	if srv.Path() != path {
		t.Errorf("Path = %q", srv.Path())
	}
}

func TestSecondListenOnLiveSocketFails(t *testing.T) {
	t.Parallel()
	_, path := startServer(t, newFakeHandler(), Options{})
	if srv, err := Listen(path, newFakeHandler(), Options{}); !errors.Is(err, ErrInUse) {
		if srv != nil {
			srv.Close()
		}
		t.Fatalf("second Listen = %v, want ErrInUse", err)
	}
	if err := Call(t.Context(), path, VerbIdentify, nil, nil); err != nil {
		t.Errorf("first server damaged by the second Listen: %v", err)
	}
}

func TestStaleSocketIsReplaced(t *testing.T) {
	t.Parallel()
	path := filepath.Join(privateDir(t, 0o700), "gateway.sock")
	old, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	old.SetUnlinkOnClose(false)
	old.Close() // leaves a socket file nobody answers on, as after a crash
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("stale socket not left behind: %v", err)
	}
	srv, err := Listen(path, newFakeHandler(), Options{})
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	runServer(t, srv)
	if err := Call(t.Context(), path, VerbIdentify, nil, nil); err != nil {
		t.Errorf("identify on the new socket: %v", err)
	}
}

func TestListenRefusesUnsafePaths(t *testing.T) {
	t.Parallel()
	regular := filepath.Join(privateDir(t, 0o700), "gateway.sock")
	if err := os.WriteFile(regular, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	sticky := filepath.Join(privateDir(t, os.ModeSticky|0o777), "gateway.sock")
	missing := filepath.Join(t.TempDir(), "nope", "gateway.sock")
	for name, path := range map[string]string{"regular file": regular, "sticky dir": sticky, "missing dir": missing} {
		if srv, err := Listen(path, newFakeHandler(), Options{}); err == nil {
			srv.Close()
			t.Errorf("%s: Listen succeeded", name)
		}
	}
	if b, err := os.ReadFile(regular); err != nil || string(b) != "keep me" {
		t.Errorf("regular file was touched: %q %v", b, err)
	}
}

func TestCallUnavailable(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "gateway.sock")
	if err := Call(t.Context(), missing, VerbIdentify, nil, nil); !errors.Is(err, ErrUnavailable) {
		t.Errorf("missing socket: %v, want ErrUnavailable", err)
	}
	srv, path := startServer(t, newFakeHandler(), Options{})
	srv.Close()
	if err := Call(t.Context(), path, VerbIdentify, nil, nil); !errors.Is(err, ErrUnavailable) {
		t.Errorf("closed server: %v, want ErrUnavailable", err)
	}
}

// TestForeignUIDRefused makes the server serve another uid only, so that
// this process (whatever its uid, root included) is a foreign peer.
func TestForeignUIDRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(privateDir(t, 0o700), "gateway.sock")
	srv, err := Listen(path, newFakeHandler(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv.uid = os.Getuid() + 1
	runServer(t, srv)
	err = Call(t.Context(), path, VerbSessionTicket, ticketParams("interactive"), nil)
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("foreign uid: %v, want ErrUnavailable (closed before reading)", err)
	}
}

// TestRunStopsWithOpenConnection: cancelling Run closes a connection that
// never sends its request, and Run returns after its goroutine exited
// (goleak checks the rest).
func TestRunStopsWithOpenConnection(t *testing.T) {
	t.Parallel()
	path := filepath.Join(privateDir(t, 0o700), "gateway.sock")
	srv, err := Listen(path, newFakeHandler(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Make sure the connection was accepted: a complete call after it.
	if err := Call(t.Context(), path, VerbIdentify, nil, nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v", err)
	}
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("idle connection still open after Run returned")
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("socket file left after shutdown: %v", err)
	}
}

func TestCloseBeforeRun(t *testing.T) {
	t.Parallel()
	path := filepath.Join(privateDir(t, 0o700), "gateway.sock")
	srv, err := Listen(path, newFakeHandler(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if err := srv.Run(t.Context()); err != nil {
		t.Errorf("Run after Close = %v", err)
	}
}
