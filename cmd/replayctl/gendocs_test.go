package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestGendocs: the hidden gendocs command writes one man page per command
// (the hidden ones left out) and the four completion scripts, and the bash
// script is valid bash that completes a subcommand through the binary.
func TestGendocs(t *testing.T) {
	dir := t.TempDir()
	res := replayctl(t, "gendocs", dir)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", res.code, res.stderr)
	}
	var want []string
	var walk func(c *cobra.Command, name string)
	walk = func(c *cobra.Command, name string) {
		want = append(want, name+".1")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub, name+"-"+sub.Name())
			}
		}
	}
	root := (&app{}).rootCommand()
	root.InitDefaultCompletionCmd() // as Execute adds it
	walk(root, "replayctl")
	for _, page := range want {
		b, err := os.ReadFile(filepath.Join(dir, "man", page))
		if err != nil {
			t.Errorf("man page: %v", err)
			continue
		}
		if !strings.Contains(string(b), `.TH "REPLAYCTL" "1"`) {
			t.Errorf("%s starts %.60q, want a section 1 man page", page, b)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "man", "replayctl-gendocs.1")); err == nil {
		t.Error("gendocs, a hidden command, has a man page")
	}
	run, _ := os.ReadFile(filepath.Join(dir, "man", "replayctl-run.1"))
	if !strings.Contains(string(run), "--sessions") || !strings.Contains(string(run), "Replay a tape against a target") {
		t.Errorf("replayctl-run.1 does not describe run and its --sessions flag:\n%s", run)
	}
	for _, name := range []string{"replayctl.bash", "_replayctl", "replayctl.fish", "replayctl.ps1"} {
		b, err := os.ReadFile(filepath.Join(dir, "completions", name))
		if err != nil || !strings.Contains(string(b), "replayctl") {
			t.Errorf("completion %s: %v, %d bytes", name, err, len(b))
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to load the completion script")
	}
	// Load the script as a shell does and ask it to complete "replayctl ru".
	// The script needs _get_comp_words_by_ref of the bash-completion
	// package, which every shell with completions loads: the package's own
	// when installed, else the few lines of it that matter here.
	script := `if [ -r /usr/share/bash-completion/bash_completion ]; then source /usr/share/bash-completion/bash_completion
else _get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }; fi
source "$1"
COMP_WORDS=(replayctl ru); COMP_CWORD=1; COMP_LINE="replayctl ru"; COMP_POINT=${#COMP_LINE}
__start_replayctl replayctl ru replayctl
printf '%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command(bash, "--norc", "-c", script, "bash", filepath.Join(dir, "completions", "replayctl.bash"))
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	// compopt complains on stderr outside a real completion: stdout only.
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "run" {
		t.Errorf("bash completion of \"replayctl ru\": %v, got %q, want run", err, out)
	}
}

// TestGendocsHidden: gendocs is not listed in the help.
func TestGendocsHidden(t *testing.T) {
	res := replayctl(t, "--help")
	if res.code != 0 || strings.Contains(res.stdout, "gendocs") {
		t.Errorf("exit %d; help lists gendocs:\n%s", res.code, res.stdout)
	}
}
