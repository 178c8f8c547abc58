package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// makeOutDir makes dir, the folder that flag names itself (--shard-reports
// DIR), when it does not exist, and says so on stderr (--history's store
// makes its own: history.Open).
// The folder it goes in must exist, as --report FILE's folder must: a
// mistyped path is refused (exit 2), not made with its parents.
func (a *app) makeOutDir(flag, dir string) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return usageError("%s %s: is a file; name a folder", flag, dir)
		}
		return nil
	}
	if err := checkOutParent(flag, dir); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) { // made meanwhile, by another replayctl
			return nil
		}
		return usageError("%s %s: %v; choose a folder you can write to", flag, dir, unwrapPathErr(err))
	}
	fmt.Fprintf(a.errOut, "%s: created the folder %s\n", flag, dir)
	return nil
}

// checkOutParent refuses dir, a folder flag names, when the folder it
// goes in does not exist: replayctl makes dir, not the folders above it.
func checkOutParent(flag, dir string) error {
	parent := filepath.Dir(dir)
	if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
		return usageError("%s %s: the folder %s does not exist; create it first (replayctl makes the folder %s, not the folders above it)", flag, dir, parent, filepath.Base(dir))
	}
	return nil
}

// unwrapPathErr is the error of a *fs.PathError without its path (the
// message names it already).
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
