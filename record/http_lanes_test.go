package record

import (
	"fmt"
	"testing"
)

// TestLanesPick plays sequences of (client key, connection, id) and
// checks which lane each message lands in.
func TestLanesPick(t *testing.T) {
	type msg struct {
		info, conn, id string
		answer         bool // its answer is recorded before the next message
		want           string
	}
	tests := []struct {
		name string
		msgs []msg
	}{
		{"one client, one connection", []msg{
			{"a", "c1", "1", true, "s1"}, {"a", "c1", "2", true, "s1"}, {"a", "c1", "3", true, "s1"},
		}},
		{"one client hopping between pooled connections", []msg{
			{"a", "c1", "1", true, "s1"}, {"a", "c2", "2", true, "s1"}, {"a", "c1", "3", true, "s1"}, {"a", "c3", "4", true, "s1"},
		}},
		{"two clients told apart by their info", []msg{
			{"a", "c1", "1", false, "s1"}, {"b", "c2", "1", false, "s2"}, {"a", "c1", "2", false, "s1"}, {"b", "c2", "2", false, "s2"},
		}},
		{"identical clients told apart by their ids", []msg{
			{"a", "c1", "1", false, "s1"}, {"a", "c2", "1", false, "s2"}, {"a", "c3", "1", true, "s3"},
			{"a", "c1", "2", true, "s1"}, {"a", "c2", "2", true, "s2"},
		}},
		{"a new connection takes the idle lane whose last id is the one before", []msg{
			{"a", "c1", "1", true, "s1"}, {"a", "c2", "1", true, "s2"}, {"a", "c2", "2", true, "s2"},
			{"a", "c3", "3", true, "s2"}, {"a", "c4", "2", true, "s1"},
		}},
		{"a lane waiting for an answer takes no request from another connection", []msg{
			{"a", "c1", "1", false, "s1"}, {"a", "c2", "2", false, "s2"},
		}},
		{"notifications go with their connection, else the latest lane", []msg{
			{"a", "c1", "1", true, "s1"}, {"a", "c2", "1", true, "s2"}, {"a", "c2", "", false, "s2"}, {"a", "c9", "", false, "s2"}, {"a", "c1", "", false, "s1"},
		}},
		{"a client whose later messages carry no clientInfo (initialize, then a stateless server)", []msg{
			{"a", "c1", "1", true, "s1"}, {"b", "c2", "1", true, "s2"}, {"", "c1", "", false, "s1"},
			{"", "c3", "2", true, "s1"}, {"", "c1", "2", true, "s2"},
		}},
		{"string ids", []msg{
			{"a", "c1", `"x"`, true, "s1"}, {"a", "c2", `"x"`, true, "s2"}, {"a", "c3", `"y"`, true, "s1"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ls lanes
			n := 0
			newName := func() string { n++; return fmt.Sprintf("s%d", n) }
			for i, m := range tc.msgs {
				l := ls.pick("127.0.0.1", m.info, m.conn, m.id, i, newName)
				if l.name != m.want {
					t.Fatalf("message %d (%s on %s, id %s): lane %s, want %s", i, m.info, m.conn, m.id, l.name, m.want)
				}
				if m.answer && m.id != "" {
					l.answered(m.id)
				}
			}
		})
	}
}
