package serve_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestServeAsksBetweenRequestsTwoSessions: two recorded sessions whose
// servers each asked roots/list on their own stream between requests,
// replayed at once (and twice over with --sessions-like copies): each
// live session is asked on its own stream and answered with its own
// tape's answer.
func TestServeAsksBetweenRequestsTwoSessions(t *testing.T) {
	var two strings.Builder
	lines := strings.Split(strings.TrimSpace(betweenRequestsTape), "\n")
	two.WriteString(lines[0] + "\n")
	seq := 0
	for _, l := range lines[1 : len(lines)-1] { // the two sessions interleaved
		for _, s := range []string{"s1", "s2"} {
			l := strings.Replace(l, `"session":"s1"`, `"session":"`+s+`"`, 1)
			l = strings.Replace(l, fmt.Sprintf(`"seq":%d,`, seq/2), fmt.Sprintf(`"seq":%d,`, seq), 1)
			two.WriteString(l + "\n")
			seq++
		}
	}
	two.WriteString(`{"type":"end","messages":14,"duration_us":401000}` + "\n")
	serveAndReplay(t, two.String(), 8)
}
