// Package testclient runs replayctl's two real test clients against an MCP
// server and returns what they saw, for the tests of record and serve:
// put a real client in front of a proxy (or of serve) and compare its
// transcript with a run straight against the server.
//
// The clients are the official SDKs', each running the same fixed script:
//
//   - Go: ./mcpclient, the go-sdk client (built once per test binary);
//   - TypeScript: testdata/tsclient/client.mjs, the @modelcontextprotocol/sdk
//     client pinned in testdata/package.json (tests skip when
//     testdata/node_modules is not installed: run `npm ci --prefix testdata`).
//
// Both are programs, so that a proxy can be put between them and the
// server: given a server command, the client starts it itself (over
// stdio); given a URL, it speaks Streamable HTTP to it.
//
// # The script
//
// In each of N concurrent sessions (client k = 0..N-1): initialize;
// tools/list; tools/call of an echo tool (echo, else test_x_mcp_header)
// with "hello from client k"; of a sum tool (get-sum, else add) with a=2,
// b=3; of test_simple_text; with a secret S, one more echo call carrying S
// as the echoed argument and as "api_key"; resources/list and
// resources/read of test://static-text, else the least text URI;
// prompts/list and prompts/get of test_simple_prompt or simple-prompt,
// else the least name with no required argument; ping (skipped on
// 2026-07-28, which has no ping). A tool the server does not list is a
// skipped step, not a failure. The "changed" script says "changed hello",
// sums 20 and 22, and ends with one extra echo call ("extra call"): against
// a tape of the default script it makes misses.
//
// The clients accept every elicitation (name, username, context, color),
// answer every sampling request with "Paris" from model "fake", and list
// one root, file:///tmp/replayctl-testclient. Client k's clientInfo name
// is replayctl-testclient-go-k (or -ts-k), so that concurrent clients of
// one run can be told apart on the wire (a recording proxy gives each
// stateless client a session of its own by it).
//
// # The transcript
//
// One JSON line per step, grouped by client in client order:
//
//	{"client":0,"step":"tools/call echo","ok":true,"result":{...}}
//	{"client":0,"step":"tools/call (sum)","ok":true,"skipped":"the server lists none of get-sum, add"}
//	{"client":0,"step":"ping","ok":false,"error":{"code":-32601,"message":"..."}}
//
// result is the result as the SDK hands it over, encoded again: the
// TypeScript SDK keeps every field it received; the Go SDK decodes into its
// types and encodes them (its zero-valued fields such as "ttlMs":0 appear,
// fields it does not know are lost). The initialize step's result is the
// Go SDK's InitializeResult; the TypeScript SDK exposes only the server's
// capabilities, serverInfo and instructions. A tool result with isError is
// a failed step; a JSON-RPC error is {code, message, data}; any other error
// is its text. Exit status 0 when every step succeeded, 1 when one did not,
// 2 on bad usage.
//
// Against go-sdk's conformance server and server-everything the
// transcripts of two runs are identical byte for byte: neither server puts
// a time, an id or a random value into these answers, so nothing is
// dropped before comparing (see Diff).
package testclient
