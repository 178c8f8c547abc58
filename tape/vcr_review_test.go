package tape

import (
	"slices"
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
