// Package atomicfile writes a file whole or not at all, and cleans up
// after writers that were killed before they finished.
//
// Create opens a temporary file next to the target; Commit syncs it and
// renames it over the target, so that a reader sees the old file or the
// new one, never half of one. The temporary file is named
// ".NAME.replayctl-tmp-PID-RANDOM" (NAME the target's base name, PID the
// writer's process id): a process killed between Create and Commit
// (kill -9, a crash, a power cut) leaves such a file behind, and the next
// Create or Probe of the same target removes it once its process is gone
// (see Clean). Only files with that exact shape, next to the target and of
// that target, are ever removed.
//
// Nothing in this package starts goroutines.
package atomicfile
