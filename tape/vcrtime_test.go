package tape

import (
	"strings"
	"testing"
	"time"
)

// plainISO, parseISO's shortcut, reads a time exactly as time.Parse reads
// it with the layout parseISO would try first, and leaves to time.Parse
// whatever it does not read.
func TestPlainISOAgreesWithTimeParse(t *testing.T) {
	for _, s := range []string{
		"2026-03-14T13:40:00", "2026-03-14T13:40:00.000", "2026-03-14 13:40:00.5",
		"2026-03-14T13:40:59.123456789", "2026-03-14T13:40:59.1234567891", "2026-03-14T13:40:00.",
		"2024-02-29T00:00:00", "2025-02-29T00:00:00", "2026-04-31T00:00:00", "2026-01-00T00:00:00",
		"2026-13-01T00:00:00", "2026-00-01T00:00:00", "2026-01-01T24:00:00", "2026-01-01T23:60:00",
		"2026-01-01T23:59:60", "2026-01-01t23:59:59", "2026-01-01T23:59:59Z", "2026-01-01T23:59:59+02:00",
		"2026-1-01T23:59:59", "0000-01-01T00:00:00", "9999-12-31T23:59:59.999999999", "2026-01-01T23:59:59,5",
		"2026-01-01T2a:59:59", "+026-01-01T23:59:59", "2026-01-01T23:59:59.-5", "",
	} {
		layout := "2006-01-02T15:04:05.999999999"
		if len(s) > 10 && s[10] == ' ' {
			layout = "2006-01-02 15:04:05.999999999"
		}
		want, err := time.Parse(layout, s)
		got, ok := plainISO(s)
		if ok && (err != nil || !got.Equal(want) || got.Location() != want.Location()) {
			t.Errorf("plainISO(%q) = %v, time.Parse = %v, %v", s, got, want, err)
		}
		if slow, sok := parseISO(s); ok && (!sok || !slow.Equal(got)) {
			t.Errorf("parseISO(%q) = %v, %v; plainISO %v", s, slow, sok, got)
		}
	}
	for _, s := range []string{"2026-03-14T13:40:00", "2026-03-14T13:40:00.000", "2026-03-14 13:40:00.5", "2024-02-29T00:00:00"} {
		if _, ok := plainISO(s); !ok {
			t.Errorf("plainISO(%q) did not read it", s)
		}
	}
}

// TestVCRZoneLessBesideZonedRecordedAt: an interaction's zone-less
// timestamp is read in the zone of a zoned metadata.recorded_at (the
// recorder's wall clock), so the handshake and the calls are as far
// apart as recorded — not hours apart (+05:30 read as UTC). A zoned
// timestamp keeps its own zone.
func TestVCRZoneLessBesideZonedRecordedAt(t *testing.T) {
	doc := `{"format_version": "1.0.0",
 "metadata": {"recorded_at": "2026-03-01T10:00:00.000+05:30"},
 "session": {
  "initialize_request": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}},
  "initialize_response": {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {}}},
  "interactions": [
   {"timestamp": "2026-03-01T10:00:01.000", "request": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, "response": {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}, "latency_ms": 20},
   {"timestamp": "2026-03-01 10:00:03.5", "request": {"jsonrpc": "2.0", "id": 2, "method": "ping"}, "response": {"jsonrpc": "2.0", "id": 2, "result": {}}, "latency_ms": 5},
   {"timestamp": "2026-03-01T04:30:04Z", "request": {"jsonrpc": "2.0", "id": 3, "method": "ping"}, "response": {"jsonrpc": "2.0", "id": 3, "result": {}}}
  ]}}`
	for _, form := range []struct {
		name string
		doc  string
	}{
		{"indented", doc},
		{"one line", strings.ReplaceAll(doc, "\n", "")},
	} {
		t.Run(form.name, func(t *testing.T) {
			h, msgs, err := DecodeVCR("zoned.vcr", []byte(form.doc))
			if err != nil {
				t.Fatal(err)
			}
			if want := "2026-03-01T04:30:00Z"; h.CreatedAt != want {
				t.Errorf("created_at: got %s, want %s", h.CreatedAt, want)
			}
			// initialize, its answer, notifications/initialized, then
			// each interaction's request and answer.
			want := []int64{0, 0, 0, 1_000_000, 1_020_000, 3_500_000, 3_505_000, 4_000_000, 4_000_000}
			if len(msgs) != len(want) {
				t.Fatalf("got %d messages, want %d", len(msgs), len(want))
			}
			for i, m := range msgs {
				if m.TUS != want[i] {
					t.Errorf("message %d (%s): got t=%dµs, want %dµs", i, m.Msg, m.TUS, want[i])
				}
			}
		})
	}
}
