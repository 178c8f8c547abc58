//go:build !unix

package record

import "os"

func signalOf(*os.ProcessState) string { return "" }
