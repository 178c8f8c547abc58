package main

// replayctl contract TAPE...: a server's contract drawn from recordings;
// run --contract FILE checks answers against it; diff compares two.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/replayctl/replayctl/contract"
	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/tape"
)

func (a *app) contractCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "contract TAPE... > contract.json",
		Short: "Draw a server's contract from recorded answers",
		Long: `Draw, from every answer the tapes recorded, the contract of their server and
print it as JSON: per tool (by name), resource (by URI) and prompt (by name)
its input — a tool's inputSchema from tools/list, a prompt's arguments from
prompts/list — and the JSON Schema of its output, inferred from every result
of tools/call, resources/read and prompts/get: the types seen, the members
every sample had (required; a member absent once is optional), the values
of strings that repeat (an enum), the format every sample has (date-time,
uri, uuid), each with the number of samples it rests on (x-samples), and
per entry the results and errors recorded (samples, errors).

replayctl run TAPE --contract contract.json checks each live answer against
it (validation mode contract); replayctl diff A.json B.json compares two
contracts, breaking changes first.`,
		Example: `  replayctl contract recordings/*.jsonl > contract.json
  replayctl run session.jsonl --contract contract.json -- node server.js
  replayctl diff contract-v1.json contract-v2.json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("want: replayctl contract TAPE... > contract.json")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var srcs []tape.Source
			for _, p := range args {
				src, err := a.loadTapeArg(cmd.Context(), p)
				if err != nil {
					return err
				}
				srcs = append(srcs, src)
			}
			c, err := contract.Draw(srcs...)
			if err != nil {
				return &exitError{code: exitBadInput, err: err}
			}
			var b bytes.Buffer // whole, so that redaction sees every secret
			if err := c.Write(&b); err != nil {
				return err
			}
			if _, err := cmd.OutOrStdout().Write(b.Bytes()); err != nil {
				return err
			}
			outputs := 0
			for _, e := range c.Tools {
				if e.Output != nil {
					outputs++
				}
			}
			fmt.Fprintf(a.errOut, "contract: %s (%d with an output schema), %s, %s from %d %s\n",
				english.Count(int64(len(c.Tools)), "tool"), outputs, english.Count(int64(len(c.Resources)), "resource"), english.Count(int64(len(c.Prompts)), "prompt"), len(args), english.Plural(int64(len(args)), "tape"))
			return nil
		},
	}
	return cmd
}

// readContract reads the contract file at path for flag (its errors are
// usage errors, exit 2).
func readContract(flag, path string) (*contract.Contract, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError("%s %s: %v", flag, path, err)
	}
	defer f.Close()
	c, err := contract.Read(f)
	if err != nil {
		return nil, usageError("%s %s: %v", flag, path, err)
	}
	return c, nil
}

// contractsOf reads the two files of diff as contracts when both are;
// nil, nil when neither is (they are tapes). One of each is a usage
// error.
func contractsOf(paths []string) ([]*contract.Contract, error) {
	var cs []*contract.Contract
	for _, p := range paths {
		c, err := sniffContract(p)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	switch {
	case cs[0] == nil && cs[1] == nil:
		return nil, nil
	case cs[0] == nil || cs[1] == nil:
		which, other := paths[0], paths[1]
		if cs[0] == nil {
			which, other = other, which
		}
		return nil, usageError("diff: %s is a contract and %s is not: compare two contracts (replayctl contract) or two tapes", which, other)
	}
	return cs, nil
}

// sniffContract reads the file at path as a contract if it is one (a JSON
// object whose format is replayctl-contract), else returns nil.
func sniffContract(path string) (*contract.Contract, error) {
	if path == "-" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil // the tape reader says what is wrong
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	if !bytes.Contains(head[:n], []byte(`"`+contract.Format+`"`)) {
		return nil, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	c, err := contract.Read(f)
	if err != nil {
		if errors.Is(err, contract.ErrNotContract) {
			return nil, nil
		}
		return nil, usageError("diff %s: %v", path, err)
	}
	return c, nil
}

// writeContractDiff prints the changes from contract A to B.
func writeContractDiff(w io.Writer, names []string, cs []contract.Change, output string) error {
	if cs == nil {
		cs = []contract.Change{}
	}
	if output == "json" {
		b, err := json.MarshalIndent(struct {
			Changes []contract.Change `json:"changes"`
		}{cs}, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	breaking := 0
	for _, c := range cs {
		if c.Breaking {
			breaking++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Contracts %s → %s: %d %s, %d breaking\n", names[0], names[1], len(cs), english.Plural(int64(len(cs)), "change"), breaking)
	for _, c := range cs {
		tag := "         "
		if c.Breaking {
			tag = "breaking "
		}
		where := c.What
		if c.Part != "" {
			where += " " + c.Part
		}
		if c.Path != "" {
			where += " " + c.Path
		}
		fmt.Fprintf(&b, "  %s%s: %s", tag, where, c.Kind)
		if len(c.A) > 0 || len(c.B) > 0 {
			fmt.Fprintf(&b, " %s → %s", orAbsent(c.A), orAbsent(c.B))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orAbsent(v []byte) string {
	if len(v) == 0 {
		return "(absent)"
	}
	if len(v) > 200 {
		return string(v[:200]) + "…"
	}
	return string(v)
}
