package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildVersion is what the build info says of this binary: the module's
// version (a tag or pseudo-version under `go install …@version`; with
// `go build` in a clone, what the Go toolchain stamps from the VCS, or
// "(devel)"), and the commit, its time and whether the tree had changes
// when the toolchain stamped them (not under `go install …@version`,
// which builds from the module cache).
type buildVersion struct {
	Module    string `json:"module"`
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Time      string `json:"commit_time,omitempty"`
	Modified  bool   `json:"modified"`
	GoVersion string `json:"go_version"`
}

// readVersion reads the build info of the running binary.
func readVersion() buildVersion {
	v := buildVersion{Module: "github.com/replayctl/replayctl", Version: "(unknown)"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.GoVersion = info.GoVersion
	if info.Main.Path != "" {
		v.Module = info.Main.Path
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the one line `replayctl --version` prints after the name:
// "v1.2.0 (commit 0123abcd…, 2026-01-02T03:04:05Z, modified) go1.26.8".
func (v buildVersion) String() string {
	s := v.Version
	if v.Commit != "" {
		s += " (commit " + v.Commit
		if v.Time != "" {
			s += ", " + v.Time
		}
		if v.Modified {
			s += ", modified"
		}
		s += ")"
	}
	if v.GoVersion != "" {
		s += " " + v.GoVersion
	}
	return s
}

func (a *app) versionCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version and commit replayctl was built from",
		Long: `Print the module version and the commit replayctl was built from, as the Go
build info records them (replayctl --version prints the same line).
-o json prints them as a JSON object: module, version, commit,
commit_time, modified, go_version.`,
		Args: exactArgs(0, "version [-o text|json]"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeVersion(cmd.OutOrStdout(), output, readVersion())
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	registerValues(cmd, "output", outputs...)
	return cmd
}

func writeVersion(w io.Writer, output string, v buildVersion) error {
	switch output {
	case "text":
		_, err := fmt.Fprintf(w, "replayctl %s\n", v)
		return err
	case "json":
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	return usageError("-o %q: want text or json", output)
}
