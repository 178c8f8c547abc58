//go:build !unix

package transport

// ConnRoom is 0 where the file descriptor limit cannot be read.
func ConnRoom() int { return 0 }
