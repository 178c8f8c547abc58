package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestCoordinationShown: the coordination section's start skew and lost
// shards are in the text summary and the HTML page, and the skew is the
// spread of the shards' first requests.
func TestCoordinationShown(t *testing.T) {
	ms := func(v float64) *float64 { return &v }
	c := &Coordination{Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Shards: []CoordinatedShard{
		{Index: 0, State: "done", FirstSentMS: ms(1.5)},
		{Index: 1, State: "dead"},
		{Index: 2, State: "done", FirstSentMS: ms(4)},
	}, Dead: []string{"shard 1/3 no heartbeat for 10s"}}
	c.Skew()
	if c.SkewMS == nil || *c.SkewMS != 2.5 {
		t.Fatalf("skew %v, want 2.5ms", c.SkewMS)
	}
	r := Report{Coordination: c}
	var text, html bytes.Buffer
	if err := r.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "html": html.String()} {
		for _, want := range []string{"3 shards", "start skew 2.5ms", "shard 1/3 no heartbeat"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: want %q in\n%s", name, want, out)
			}
		}
	}
	one := &Coordination{Shards: []CoordinatedShard{{FirstSentMS: ms(3)}}}
	if one.Skew(); one.SkewMS != nil {
		t.Errorf("one shard: skew %v, want none", *one.SkewMS)
	}
}
