// Package filelock takes an exclusive, non-blocking lock on a file, held
// by the process: serve --mode new and record keep each other off one tape
// with it.
package filelock
