package tape

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"
)

func lineSeeds() []string {
	return []string{
		`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"x"}}`,
		`{"type":"message","seq":1,"t_us":1830,"session":"s\u00e9","dir":"s2c","msg":[{}],"http":{"status":200,"headers":{"A":["b"]}},"sse":{"id":"e1","retry":5},"x":[1]}`,
		`{"type":"message","seq":"1","t_us":-1,"dir":"up","msg":"x"}`,
		`{"type":"header","format":"replayctl-tape","version":1,"tags":{"a":"b"}}`,
		`{"type":"end","messages":1,"duration_us":0}`,
		`{"t\u0079pe":"message"}`,
		`{"type":"message","seq":0,"t_us":0,"dir":"c2s","msg":{"a":1.5e3},"http":null}`,
	}
}

// FuzzDecodeLine decodes one native message line; whatever decodes must
// encode and decode back to the same message.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range lineSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var env envelope
		if scanEnvelope(line, &env) != nil || lineType(line, &env) != "message" {
			return
		}
		var m Message
		if decodeMessage(line, &env, &m, "", nil) != nil {
			return
		}
		if !json.Valid(m.Msg) {
			t.Fatalf("decoded msg %q is not valid JSON", m.Msg)
		}
		out, err := appendMessage(nil, m)
		if err != nil {
			t.Fatalf("cannot encode a decoded message %+v: %v", m, err)
		}
		var env2 envelope
		var m2 Message
		if err := scanEnvelope(out[:len(out)-1], &env2); err != nil {
			t.Fatalf("encoded line %q does not scan: %v", out, err)
		}
		if e := decodeMessage(out[:len(out)-1], &env2, &m2, "", nil); e != nil {
			t.Fatalf("encoded line %q does not decode: %v", out, e)
		}
		if m2.Seq != m.Seq || m2.TUS != m.TUS || m2.Dir != m.Dir || m2.Session != m.Session || len(m2.Extra) != len(m.Extra) {
			t.Fatalf("round trip: got %+v, want %+v", m2, m)
		}
		if !bytes.ContainsAny(m.Msg, "\r\n") && !bytes.Equal(m2.Msg, bytes.TrimSpace(m.Msg)) {
			t.Fatalf("round trip msg: got %q, want %q", m2.Msg, m.Msg)
		}
	})
}

// FuzzReadTape reads a whole native tape: no panic, and a tape that reads
// cleanly converts to one that reads the same, and can seek to each seq.
func FuzzReadTape(f *testing.F) {
	f.Add([]byte(tapeOf(3, 1, true)))
	f.Add([]byte(tapeOf(2, 5, false) + `{"type":"message","seq":`))
	f.Add([]byte(hdr + "\n\r\n" + lineSeeds()[1] + "\n"))
	f.Add([]byte(`{"format_version":"1.0.0","session":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader("fuzz", bytes.NewReader(data), WithMaxLine(4096))
		if err != nil {
			asError(t, err)
			return
		}
		var msgs []Message
		for {
			m, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				asError(t, err)
				return
			}
			msgs = append(msgs, m)
		}
		for i := len(msgs) - 1; i >= 0; i -= 1 + i/3 {
			if err := r.SeekSeq(msgs[i].Seq); err != nil {
				t.Fatalf("Seek(%d): %v", msgs[i].Seq, err)
			}
			if m, err := r.Next(); err != nil || m.Seq != msgs[i].Seq || !bytes.Equal(m.Msg, msgs[i].Msg) {
				t.Fatalf("after Seek(%d): got seq %d %q (%v), want %q", msgs[i].Seq, m.Seq, m.Msg, err, msgs[i].Msg)
			}
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, r.Header())
		if err != nil {
			t.Fatalf("header %+v does not write: %v", r.Header(), err)
		}
		for _, m := range msgs {
			if err := w.Write(m); err != nil {
				t.Fatalf("message %+v does not write: %v", m, err)
			}
		}
		w.Close()
		r2, err := NewReader("again", bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("written tape does not open: %v\n%s", err, buf.Bytes())
		}
		for i := range msgs {
			m, err := r2.Next()
			if err != nil || m.Seq != msgs[i].Seq || (!bytes.ContainsAny(msgs[i].Msg, "\r\n") && !bytes.Equal(m.Msg, bytes.TrimSpace(msgs[i].Msg))) {
				t.Fatalf("written tape message %d: got %+v (%v), want %+v", i, m, err, msgs[i])
			}
		}
		if _, err := r2.Next(); err != io.EOF || len(r2.Warnings()) != 0 {
			t.Fatalf("written tape: got %v and warnings %q at the end, want io.EOF and none", err, r2.Warnings())
		}
	})
}

// FuzzDecodeVCR imports Agent VCR documents: no panic, and what imports is
// numbered from 0 with times that never decrease and compact JSON objects.
func FuzzDecodeVCR(f *testing.F) {
	for _, p := range []string{fixtures + "abacus-v1.vcr", fixtures + "abacus-recorded.vcr", fixtures + "everything-recorded.vcr", "testdata/edge.vcr", "testdata/compact.vcr"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"format_version":"1.0.0","session":{"interactions":[{"request":{},"latency_ms":1e300}]}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		_, msgs, err := DecodeVCR("fuzz.vcr", doc)
		if err != nil {
			asError(t, err)
			return
		}
		var last int64
		for i, m := range msgs {
			if m.Seq != int64(i) || m.TUS < last || (m.Dir != C2S && m.Dir != S2C) {
				t.Fatalf("message %d: seq %d t %d after %d dir %q", i, m.Seq, m.TUS, last, m.Dir)
			}
			if len(m.Msg) == 0 || m.Msg[0] != '{' || !json.Valid(m.Msg) || bytes.ContainsAny(m.Msg, "\n") {
				t.Fatalf("message %d: msg %q is not a compact JSON object", i, m.Msg)
			}
			last = m.TUS
		}
	})
}
