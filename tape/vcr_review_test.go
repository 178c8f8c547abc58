package tape

import (
	"slices"
	"strings"
	"testing"
)

// TestVCRServerCommandQuoted (review of vcr.go, metadata): Agent VCR's
// server_command is one string when it has no server_args, and the
// importer splits it "on spaces, as its shell would" — but a shell keeps
// a quoted argument whole: `node "/my dir/srv.js" --x` is three
// arguments, not four with the quotes kept in them.
func TestVCRServerCommandQuoted(t *testing.T) {
	doc := `{"format_version":"1.0.0","metadata":{"server_command":"node \"/my dir/srv.js\" --x"},"session":{` +
		`"initialize_request":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}},` +
		`"initialize_response":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}},"interactions":[]}}`
	h, _, err := DecodeVCR("quoted.vcr", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"node", "/my dir/srv.js", "--x"}
	if h.Server == nil || !slices.Equal(h.Server.Command, want) {
		var got []string
		if h.Server != nil {
			got = h.Server.Command
		}
		t.Errorf("server command %q, want %q", got, want)
	}
}

// TestShellWords: the command line's words as a POSIX shell splits them
// (no expansion), and its errors.
func TestShellWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "node srv.js", want: []string{"node", "srv.js"}},
		{in: "  node\t srv.js  ", want: []string{"node", "srv.js"}},
		{in: `node "/my dir/srv.js" --x`, want: []string{"node", "/my dir/srv.js", "--x"}},
		{in: `python -c 'print("hi there")'`, want: []string{"python", "-c", `print("hi there")`}},
		{in: `a\ b "c\"d" "e\f" ''`, want: []string{"a b", `c"d`, `e\f`, ""}},
		{in: `x"y z"'w'`, want: []string{"xy zw"}},
		{in: `node 'open`, err: "single quote is not closed"},
		{in: `node "open`, err: "double quote is not closed"},
		{in: `node \`, err: "ends with a backslash"},
	} {
		got, err := shellWords(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("shellWords(%q): error %v, want one saying %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestVCRServerCommandBadQuote: a server_command whose quote is not
// closed is refused naming the member, the line and what to do.
func TestVCRServerCommandBadQuote(t *testing.T) {
	doc := `{"format_version":"1.0.0","metadata":{"server_command":"node \"/my dir/srv.js"},"session":{` +
		`"initialize_request":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}},` +
		`"initialize_response":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}},"interactions":[]}}`
	_, _, err := DecodeVCR("quoted.vcr", []byte(doc))
	if err == nil || !strings.Contains(err.Error(), "metadata.server_command") || !strings.Contains(err.Error(), "double quote is not closed") || !strings.Contains(err.Error(), "server_args") {
		t.Errorf("got %v, want an error naming metadata.server_command, the open quote and server_args", err)
	}
}
