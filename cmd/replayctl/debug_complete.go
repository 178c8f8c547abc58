package main

import (
	"slices"
	"strings"

	"github.com/replayctl/replayctl/controller"
	"github.com/replayctl/replayctl/report"
)

// argWords are the fixed arguments Tab offers after a command (by name).
var argWords = map[string][]string{
	"print": {"answer", "recorded"},
	"speed": {"fast", "realtime", "10x"},
}

// completeLine is the prompt's Tab completion: for the word before pos in
// line it returns what comes before the word, the candidates that may
// replace it (in the order Tab cycles through them), and what comes after
// pos. The first word completes to command names, in help's order; the
// argument of print and speed to their words; that of break and seek to
// the client methods on the tape (methods, when not nil).
func completeLine(line string, pos int, methods func() []string) (head string, candidates []string, tail string) {
	pos = min(max(pos, 0), len(line))
	before, tail := line[:pos], line[pos:]
	i := strings.LastIndexAny(before, " \t") + 1
	head, word := before[:i], before[i:]
	fields := strings.Fields(head)
	var words []string
	switch len(fields) {
	case 0:
		for _, c := range replCmds {
			words = append(words, c.name)
		}
	case 1:
		c, _, err := parseCommand(fields[0])
		if err != nil || c == nil {
			return head, nil, tail
		}
		words = argWords[c.name]
		if (c.name == "break" || c.name == "seek") && methods != nil {
			words = methods()
		}
	}
	for _, w := range words {
		if strings.HasPrefix(w, word) {
			candidates = append(candidates, w)
		}
	}
	return head, candidates, tail
}

// tapeMethods returns the distinct methods of the client messages that
// lookup finds from seq 0 on, sorted.
func tapeMethods(lookup func(int64) (controller.Msg, bool)) []string {
	seen := map[string]bool{}
	var ms []string
	for seq := int64(0); ; seq++ {
		m, ok := lookup(seq)
		if !ok {
			break
		}
		if m.Dir == report.DirC2S && m.Method != "" && !seen[m.Method] {
			seen[m.Method] = true
			ms = append(ms, m.Method)
		}
	}
	slices.Sort(ms)
	return ms
}
