package controller

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// maxSocketPath is the longest Unix socket path every system takes
// (sun_path is 108 bytes on Linux, 104 on macOS and the BSDs, both with
// the terminating NUL).
const maxSocketPath = 103

// ListenUnix creates the control socket at path, for Serve, so that only
// the user running the replay can drive it:
//
//   - The socket is bound in a new folder of mode 0700 beside path, made
//     0600 there, and only then linked at path: at no moment can another
//     user connect through a file the umask left open. (When that folder's
//     name would be too long for a socket path, it is bound at path and
//     made 0600 at once.)
//   - Where the system says who a client is (SO_PEERCRED on Linux), a
//     client of another uid is refused with an error line and hung up on,
//     whatever the socket file's mode.
//   - A socket file left at path by a replay that was killed (nothing
//     listens on it: connecting is refused) is removed first; one that a
//     live replay listens on is refused with an error that says so, as is
//     a path that exists and is not a socket.
//
// Closing the listener removes the socket file, unless another has
// replaced it since. ListenUnix never blocks for more than a second.
func ListenUnix(path string) (net.Listener, error) {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("control socket %s: the folder %s does not exist; create it first", path, dir)
	}
	if err := clearStale(path); err != nil {
		return nil, err
	}
	ln, err := bindPrivate(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Lstat(path)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	return &unixListener{UnixListener: ln, path: path, file: fi, uid: os.Getuid()}, nil
}

// clearStale makes way for a socket at path: nothing there, or a socket
// file nobody listens on (removed). A live socket, or anything else at
// path, is an error.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("control socket %s: %w", path, err)
	case fi.Mode().Type() != fs.ModeSocket:
		return fmt.Errorf("control socket %s: the path exists and is not a socket; choose another path", path)
	}
	conn, err := net.DialTimeout("unix", path, time.Second)
	switch {
	case err == nil:
		conn.Close()
		return fmt.Errorf("control socket %s: another replay is listening on it; stop that one, or choose another path", path)
	case errors.Is(err, syscall.ECONNREFUSED):
		// Left by a replay that was killed: nobody listens.
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("control socket %s: a stale socket file is in the way and cannot be removed: %w", path, err)
		}
		return nil
	}
	return fmt.Errorf("control socket %s: a socket file is in the way (%v); remove it, or choose another path", path, err)
}

// bindPrivate binds a socket and makes it appear at path with mode 0600.
func bindPrivate(path string) (*net.UnixListener, error) {
	dir := filepath.Dir(path)
	// Mode 0700, and a short name: a socket's path has a small limit.
	priv, err := os.MkdirTemp(dir, ".rc*")
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	defer os.RemoveAll(priv)
	tmp := filepath.Join(priv, "s")
	if len(tmp) > maxSocketPath && len(path) <= maxSocketPath {
		return bindAt(path) // the private name is too long for a socket
	}
	ln, err := bindAt(tmp)
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", path, errors.Unwrap(err))
	}
	// Link, not rename: a link never replaces a socket another replay
	// put at path since clearStale looked.
	err = os.Link(tmp, path)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		err = os.Rename(tmp, path) // a file system without hard links
	}
	if err != nil {
		ln.Close()
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("control socket %s: another replay has just created it; choose another path", path)
		}
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	return ln, nil
}

// bindAt binds a socket at name, mode 0600. Closing it does not remove
// the file (the socket lives on at its public path).
func bindAt(name string) (*net.UnixListener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", name, err)
	}
	ln.SetUnlinkOnClose(false)
	if err := os.Chmod(name, 0o600); err != nil {
		ln.Close()
		os.Remove(name)
		return nil, fmt.Errorf("control socket %s: %w", name, err)
	}
	return ln, nil
}

// unixListener is the control socket ListenUnix made: it refuses clients
// of another uid and removes its file when closed.
type unixListener struct {
	*net.UnixListener
	path string
	file fs.FileInfo // the socket file, to know it is still ours
	uid  int
}

// Accept returns the next client of the socket's own uid. A client of
// another uid gets one error line and is hung up on.
func (l *unixListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.AcceptUnix()
		if err != nil {
			return nil, err
		}
		uid, ok := peerUID(conn)
		if !ok || uid == l.uid {
			return conn, nil
		}
		refuse(conn, fmt.Sprintf("control socket %s: refused a client of uid %d: only uid %d, who runs the replay, may drive it", l.path, uid, l.uid))
	}
}

// refuse writes one error reply to conn, a second at most, and hangs up.
func refuse(conn net.Conn, msg string) {
	b, _ := json.Marshal(response{Error: msg}) // a response always marshals
	_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = conn.Write(append(b, '\n'))
	conn.Close()
}

// Addr is the socket's public path.
func (l *unixListener) Addr() net.Addr { return &net.UnixAddr{Name: l.path, Net: "unix"} }

// Close stops listening and removes the socket file, unless another file
// has taken its place.
func (l *unixListener) Close() error {
	err := l.UnixListener.Close()
	if fi, serr := os.Lstat(l.path); serr == nil && os.SameFile(fi, l.file) {
		os.Remove(l.path)
	}
	return err
}
