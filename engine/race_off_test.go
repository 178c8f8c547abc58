//go:build !race

package engine

// raceDetector is true in a build with the race detector, which makes
// allocations of its own: counts of allocations are not the program's.
const raceDetector = false
