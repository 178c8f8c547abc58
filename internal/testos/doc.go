// Package testos gives tests the calls on processes and files that
// differ between systems, so that a test builds everywhere and skips,
// saying why, where the call has no equivalent (Windows has no named
// pipes made by mkfifo, nor kill -0). Tests only.
package testos
