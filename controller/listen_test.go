//go:build unix

package controller

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The socket is 0600 whatever the umask, and ListenUnix leaves nothing
// else in the folder; closing the listener removes the socket.
func TestListenUnixMode(t *testing.T) {
	old := syscall.Umask(0) // the worst umask: files 0777
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "c.sock")
	ln, err := ListenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket %s: mode %v, want a socket of 0600", path, fi.Mode())
	}
	if got := ln.Addr().String(); got != path {
		t.Errorf("Addr: got %s, want %s", got, path)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %v, want only the socket", entries)
	}
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("dial the socket: %v", err)
	}
	conn.Close()
	ln.Close()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("after Close: %v, want the socket removed", err)
	}
}

// A socket file nobody listens on (its replay was killed) is replaced; a
// live one is refused and left alone; so is a path that is not a socket.
func TestListenUnixStaleAndLive(t *testing.T) {
	dir := t.TempDir()

	stale := filepath.Join(dir, "stale.sock")
	old, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	old.SetUnlinkOnClose(false) // as kill -9 leaves it
	old.Close()
	ln, err := ListenUnix(stale)
	if err != nil {
		t.Fatalf("over a stale socket: %v, want it replaced", err)
	}
	defer ln.Close()

	// ln is live now: a second replay on the same path is refused.
	if _, err := ListenUnix(stale); err == nil || !strings.Contains(err.Error(), "another replay is listening on it") {
		t.Errorf("over a live socket: got %v, want it refused", err)
	}
	conn, err := net.Dial("unix", stale)
	if err != nil {
		t.Fatalf("the live socket after a refused second listen: %v", err)
	}
	conn.Close()

	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ListenUnix(file); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("over a regular file: got %v, want it refused", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "mine" {
		t.Errorf("the regular file was changed: %q", b)
	}
}

// Closing a listener whose socket file another has replaced leaves the
// new file alone.
func TestListenUnixCloseKeepsAnothersSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.sock")
	ln, err := ListenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("another's file at the path was removed: %v", err)
	}
}

const dialHelperEnv = "REPLAYCTL_CONTROLLER_DIAL"

// TestDialHelper is not a test: TestListenUnixRefusesOtherUsers runs the
// test binary as another user with this test alone, to connect to the
// socket and print what happened.
func TestDialHelper(t *testing.T) {
	path := os.Getenv(dialHelperEnv)
	if path == "" {
		t.Skip("a helper process of TestListenUnixRefusesOtherUsers")
	}
	conn, err := net.Dial("unix", path)
	if err != nil {
		fmt.Printf("DIAL ERROR: %v\n", err)
		return
	}
	defer conn.Close()
	fmt.Fprintln(conn, `{"id":1,"cmd":"status"}`)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	fmt.Printf("REPLY: %q %v\n", line, err)
}

// Another user can neither connect (the socket is 0600) nor, when the
// socket was opened to all (chmod 0666), drive the replay: the peer's uid
// is checked.
func TestListenUnixRefusesOtherUsers(t *testing.T) {
	if runtime.GOOS != "linux" || os.Getuid() != 0 {
		t.Skip("needs root on Linux, to run a client as another user")
	}
	const nobody = 65534
	// Both the helper binary and the socket's folder must be reachable
	// by nobody.
	shared, err := os.MkdirTemp("", "replayctl-peer")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(shared)
	if err := os.Chmod(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(shared, "controller.test")
	copyFile(t, os.Args[0], helper, 0o755)
	path := filepath.Join(shared, "c.sock")

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	c := New(&fakeEngine{})
	wg.Go(func() { _ = c.Run(ctx) })
	ln, err := ListenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() { _ = Serve(ctx, c, ln) })

	dialAs := func() string {
		cmd := exec.CommandContext(ctx, helper, "-test.run=^TestDialHelper$", "-test.v")
		cmd.Env = append(os.Environ(), dialHelperEnv+"="+path)
		cmd.Dir = shared
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("helper as uid %d: %v\n%s", nobody, err, out)
		}
		return string(out)
	}
	if out := dialAs(); !strings.Contains(out, "DIAL ERROR") || !strings.Contains(out, "permission denied") {
		t.Errorf("uid %d connecting to a 0600 socket: got\n%s\nwant permission denied", nobody, out)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	out := dialAs()
	t.Logf("uid %d, socket 0666: %s", nobody, out)
	if !strings.Contains(out, "REPLY") || !strings.Contains(out, "refused a client of uid 65534") || strings.Contains(out, `\"ok\":true`) {
		t.Errorf("uid %d connecting to a 0666 socket: got\n%s\nwant its command refused", nobody, out)
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
