package tape

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/replayctl/replayctl/jsonrpc"
)

var writtenSeeds = []string{
	`{"type":"message","seq":0,"t_us":0,"session":"s1","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}}`,
	`{"type":"message","seq":7,"t_us":123456789012345678,"dir":"s2c","msg":{"jsonrpc":"2.0","id":"a\"b","result":{}}}` + "\r",
	`{"type":"message","seq":7,"t_us":1,"session":"","dir":"s2c","msg":{"jsonrpc":"2.0","method":"notifications/x"}} `,
	`{"type":"message","seq":1,"t_us":2,"session":"s","dir":"c2s","msg":{"not":"rpc"}}`,
	`{"type":"message","seq":01,"t_us":2,"dir":"c2s","msg":{}}`,
	`{"type":"message","seq":1,"t_us":1234567890123456789,"dir":"c2s","msg":{}}`,
	`{"type":"message","seq":1,"t_us":2,"session":"s\u00e9","dir":"c2s","msg":{}}`,
	`{"type":"message","seq":1,"t_us":2,"session":"é","dir":"c2s","msg":{}}`,
	`{"type":"message","seq":1,"t_us":2,"dir":"c2s","msg":{"a":tru}}`,
	`{"type":"message","seq":1,"t_us":2,"dir":"c2s","msg":{},"msg":{}}`,
	`{"type":"message","seq":1,"t_us":2,"dir":"c2s","msg":{}}}`,
	`{"type":"message","seq":1,"t_us":2,"dir":"c2s","msg":{}`,
	`{"type":"message","seq":1,"t_us":2,"dir":"c2s","msg":[{}]}`,
	`{"type":"message","seq":1.5,"t_us":2,"dir":"c2s","msg":{}}`,
	`{"type":"message","seq":1,"t_us":2,"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"result":{}},"http":{"status":200}}`,
}

// FuzzDecodeWritten: a line decodeWritten decodes, scanEnvelope and
// decodeMessage decode to the same message, its carried parse too.
func FuzzDecodeWritten(f *testing.F) {
	for _, s := range append(writtenSeeds, lineSeeds()...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkWritten(t, line)
	})
}

func TestDecodeWritten(t *testing.T) {
	for _, s := range writtenSeeds {
		checkWritten(t, []byte(s))
	}
}

func checkWritten(t *testing.T, line []byte) {
	t.Helper()
	var got Message
	if !decodeWritten(line, &got, "s1", &slab{}) {
		return
	}
	var env envelope
	if err := scanEnvelope(line, &env); err != nil {
		t.Fatalf("decodeWritten took %q, which does not scan: %v", line, err)
	}
	if typ := lineType(line, &env); typ != "message" {
		t.Fatalf("decodeWritten took %q, of type %q", line, typ)
	}
	var want Message
	if e := decodeMessage(line, &env, &want, "s1", &slab{}); e != nil {
		t.Fatalf("decodeWritten took %q, which decodeMessage refuses: %v", line, e)
	}
	gotRPC, gerr := got.RPC()
	wantRPC, werr := want.RPC()
	if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(gotRPC, wantRPC) {
		t.Fatalf("%q: RPC() = %+v, %v; decodeMessage's %+v, %v", line, gotRPC, gerr, wantRPC, werr)
	}
	if _, gk := got.rpc.Of(got.Msg); gk != func() bool { _, wk := want.rpc.Of(want.Msg); return wk }() {
		t.Fatalf("%q: decodeWritten carries a parse: %v, decodeMessage: %v", line, gk, !gk)
	}
	got.rpc, want.rpc = jsonrpc.Kept{}, jsonrpc.Kept{}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decodeWritten gives %+v, decodeMessage %+v", line, got, want)
	}
}

// TestWriterLinesTakeTheShortPath: every message the Writer writes
// without http, sse or extra members is decoded by decodeWritten.
func TestWriterLinesTakeTheShortPath(t *testing.T) {
	msgs := []Message{
		{Seq: 0, TUS: 0, Session: "s1", Dir: C2S, Msg: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`)},
		{Seq: 1, TUS: 99, Session: "", Dir: S2C, Msg: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)},
		{Seq: 123456789, TUS: 1 << 50, Session: "a b/c", Dir: S2C, Msg: []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`)},
		{Seq: 2, TUS: 3, Session: "s1", Dir: C2S, Msg: []byte(`{"any":"object"}`)},
	}
	for _, m := range msgs {
		line, err := appendMessage(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		line = line[:len(line)-1]
		var got Message
		if !decodeWritten(line, &got, "", &slab{}) {
			t.Errorf("decodeWritten does not take the Writer's line %s", line)
			continue
		}
		checkWritten(t, line)
	}
}

// TestWrittenCountEightAtATime: writtenCount, which reads eight digits
// at a time, gives the byte-at-a-time reading's verdict, value and end
// (the end on success) for random runs of digits and other bytes at
// every length and offset, and for every count of 0 to 20 digits.
func TestWrittenCountEightAtATime(t *testing.T) {
	byteAtATime := func(line []byte, i int) (int64, int, bool) {
		start := i
		var n int64
		for ; i < len(line) && line[i] >= '0' && line[i] <= '9'; i++ {
			n = n*10 + int64(line[i]-'0')
		}
		if d := i - start; d == 0 || d > 18 || (d > 1 && line[start] == '0') {
			return 0, i, false
		}
		return n, i, true
	}
	check := func(line []byte, i int) {
		n, end, ok := writtenCount(line, i)
		wn, wend, wok := byteAtATime(line, i)
		if ok != wok || n != wn || (ok && end != wend) {
			t.Fatalf("writtenCount(%q, %d) = %d, %d, %v; want %d, %d, %v", line, i, n, end, ok, wn, wend, wok)
		}
	}
	alphabet := []byte("0123456789012345678901234567890123456789/:,}\"a\x00\xff\xfa\x3a\x2f")
	rng := rand.New(rand.NewPCG(7, 8))
	for range 500_000 {
		line := make([]byte, rng.IntN(40))
		for k := range line {
			line[k] = alphabet[rng.IntN(len(alphabet))]
		}
		check(line, rng.IntN(len(line)+1))
	}
	for d := range 21 {
		for _, tail := range []string{"", ",", `,"t_us":1}`, "0123456789"} {
			line := []byte("x" + strings.Repeat("9", d) + tail)
			check(line, 1)
			if d > 0 {
				line[1] = '1'
				check(line, 1)
			}
		}
	}
}
