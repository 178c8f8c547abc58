package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// gendocsCommand is `replayctl gendocs DIR`, hidden: the man pages
// (DIR/man/replayctl*.1, one per command) and the shell completion
// scripts (DIR/completions/replayctl.bash, _replayctl, replayctl.fish,
// replayctl.ps1), generated from the commands themselves, for a release
// archive or a package (see .goreleaser.yaml).
func (a *app) gendocsCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "gendocs DIR",
		Short:  "Write the man pages and the shell completion scripts into DIR",
		Hidden: true,
		Args:   exactArgs(1, "gendocs DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			dir := args[0]
			man, comp := filepath.Join(dir, "man"), filepath.Join(dir, "completions")
			for _, d := range []string{man, comp} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					return usageError("gendocs: %v", err)
				}
			}
			// The pages' date is SOURCE_DATE_EPOCH when set (cobra reads
			// it), so that two builds of one commit give the same archive.
			header := &doc.GenManHeader{Title: "REPLAYCTL", Section: "1", Source: "replayctl " + root.Version, Manual: "replayctl manual"}
			root.DisableAutoGenTag = true
			if err := doc.GenManTree(root, header, man); err != nil {
				return fmt.Errorf("gendocs: man pages: %w", err)
			}
			for _, c := range []struct {
				name string
				gen  func(string) error
			}{
				{"replayctl.bash", func(p string) error { return root.GenBashCompletionFileV2(p, true) }},
				{"_replayctl", root.GenZshCompletionFile},
				{"replayctl.fish", func(p string) error { return root.GenFishCompletionFile(p, true) }},
				{"replayctl.ps1", root.GenPowerShellCompletionFileWithDesc},
			} {
				if err := c.gen(filepath.Join(comp, c.name)); err != nil {
					return fmt.Errorf("gendocs: completion %s: %w", c.name, err)
				}
			}
			fmt.Fprintf(a.errOut, "wrote the man pages to %s and the completion scripts to %s\n", man, comp)
			return nil
		},
	}
}
