package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/replayctl/replayctl/internal/english"
	"github.com/replayctl/replayctl/internal/termsafe"
	"github.com/replayctl/replayctl/tapediff"
)

// diffValueWidth is how many runes of a value the text output shows.
const diffValueWidth = 100

// writeDiffText prints res for a reader: the two tapes, the breaking
// changes, the other changes (each list grouped by method and name), the
// unpaired requests and a summary line. p colours it on a terminal.
func writeDiffText(out io.Writer, sides []tapediff.Side, res tapediff.Result, p painter) error {
	w := bufio.NewWriter(out)
	for i, s := range sides {
		fmt.Fprintf(w, "%s %s  (%d messages, protocol %s)\n", p.bold(string(rune('A'+i))), termsafe.String(s.Name), len(s.Messages), termsafe.String(orDash(s.Header.ProtocolVersion)))
	}
	var brk, other []tapediff.Change
	for _, c := range res.Changes {
		if c.Breaking {
			brk = append(brk, c)
		} else {
			other = append(other, c)
		}
	}
	if len(brk) > 0 {
		fmt.Fprintf(w, "\n%s\n", p.red(p.bold(fmt.Sprintf("BREAKING CHANGES (%d)", len(brk)))))
		writeGroups(w, brk, p.red)
	}
	if len(other) > 0 {
		fmt.Fprintf(w, "\n%s\n", p.bold(fmt.Sprintf("OTHER CHANGES (%d)", len(other))))
		writeGroups(w, other, p.yellow)
	}
	if len(res.Unpaired) > 0 {
		fmt.Fprintf(w, "\n%s\n", p.bold(fmt.Sprintf("UNPAIRED REQUESTS (%d)", len(res.Unpaired))))
		for _, u := range res.Unpaired {
			where := fmt.Sprintf("seq %d", u.Seq)
			if u.Line > 0 {
				where += fmt.Sprintf(" line %d", u.Line)
			}
			only := "only in A"
			if u.Side == "b" {
				only = "only in B"
			}
			fmt.Fprintf(w, "  %s  %s%s  %s\n", only, termsafe.String(u.Method), quotedName(u.Name),
				p.dim(fmt.Sprintf("(session %s, %s, %s)", termsafe.String(u.Session), u.Dir, where)))
		}
	}
	s := res.Summary
	verdict := p.green("no changes")
	if s.Changes > 0 || s.UnpairedA+s.UnpairedB > 0 {
		verdict = fmt.Sprintf("%s, %s, %s",
			paintIf(s.Breaking > 0, p.red, fmt.Sprintf("%d breaking", s.Breaking)), english.Count(int64(s.NonBreaking), "other change"), english.Count(int64(s.UnpairedA+s.UnpairedB), "unpaired request"))
	}
	fmt.Fprintf(w, "\n%s; %s paired of %d in A and %d in B\n", verdict, english.Count(int64(s.Paired), "request"), s.RequestsA, s.RequestsB)
	return w.Flush()
}

// writeGroups prints changes under one heading per method and name, in
// the order they come (Compare sorts them so).
func writeGroups(w io.Writer, cs []tapediff.Change, kindColor func(string) string) {
	var method, name string
	for i, c := range cs {
		if i == 0 || c.Method != method || c.Name != name {
			method, name = c.Method, c.Name
			fmt.Fprintf(w, "  %s%s\n", termsafe.String(c.Method), quotedName(c.Name))
		}
		line := "    " + kindColor(string(c.Kind))
		if c.Path != "" {
			line += "  " + termsafe.String(c.Path)
		}
		switch {
		case c.A != nil && c.B != nil:
			line += ": " + cut(string(c.A)) + " → " + cut(string(c.B))
		case c.A != nil && c.Path != "":
			line += ": was " + cut(string(c.A))
		case c.B != nil && c.Path != "":
			line += ": now " + cut(string(c.B))
		}
		if c.Detail != "" {
			line += "  (" + termsafe.String(c.Detail) + ")"
		}
		fmt.Fprintln(w, line)
	}
}

func quotedName(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(" %q", name)
}

// cut keeps a value on one line, its control characters escaped, and to
// diffValueWidth runes.
func cut(s string) string {
	s = termsafe.String(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) <= diffValueWidth {
		return s
	}
	r := []rune(s)
	return string(r[:diffValueWidth]) + "…"
}

func paintIf(on bool, paint func(string) string, s string) string {
	if on {
		return paint(s)
	}
	return s
}
