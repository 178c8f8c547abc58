// Package validator compares the answer a live target gave with the one on
// the tape and says what differs.
//
// Check judges one answer: it picks the first rule whose scope matches
// the Subject (the message answered), compares in that rule's mode and
// returns a Verdict: the differences, a named error transition, and what
// the rule says to do on failure (ignore, warn, error, retry, skip).
// New takes options (WithRules takes Rule values); package replay
// translates the config file's validation section into them. Compare is
// the older, rule-less entry: exact mode, no named transitions.
//
// # Modes
//
//   - exact (the default): every value not ignored is compared. Object
//     member order does not matter, numbers are equal when their values
//     are (1 == 1.0 == 10e-1, exactly, also for integers too big for a
//     float64), strings are equal when they decode to the same text,
//     arrays are compared index by index.
//   - structural: same shape and JSON types; values of the same type may
//     differ. Members added or removed are reported. Arrays are compared
//     element-wise up to the shorter length, and the extra elements are
//     reported as added or removed: a list of another length is another
//     shape. Use an ignore pattern (result.items[*]) for lists whose
//     length is meant to vary.
//   - partial: only a rule's required_fields are compared (in exact mode,
//     with the normalisers and tolerance). A pattern may match many values
//     (result.tools[*].name): those on both sides must be equal, those on
//     one side only are removed or added. A pattern without wildcards that
//     matches on neither side is reported as missing; a wildcard pattern
//     that matches nothing on either side passes (two empty lists). A rule
//     with required_fields and no mode is partial.
//   - schema: the recording is not looked at (expected may be nil); the
//     live message must be JSON-RPC 2.0 ("jsonrpc": "2.0", one of result
//     or error, an error with an integer code and a string message) and
//     an answer to a core MCP method must have the result MCP requires:
//     initialize (protocolVersion, capabilities, serverInfo.name and
//     .version), tools/list (tools[] with name and an object
//     inputSchema), tools/call (content[] of objects with a string type,
//     or structuredContent; isError a boolean), resources/list
//     (resources[] with uri and name), resources/templates/list,
//     resources/read (contents[] with uri), prompts/list (prompts[] with
//     name), prompts/get (messages[] with role and content), ping and the
//     other empty results ({}), completion/complete (completion.values[]
//     of strings). Other methods: only the JSON-RPC shape. Members not
//     listed are allowed. Differences have kind missing or type, with
//     what was required as Expected ("string", "integer", …).
//   - contract: as schema, and a result is also held to a contract drawn
//     beforehand from recordings (WithContract, an AnswerChecker; package
//     contract): its differences are the checker's, at their paths.
//     Without a contract the mode is refused (New's error).
//
// In every mode, a recorded result answered now by an error is one
// difference of kind "success→error" at "$" (the reverse,
// "error→success"), with the recorded and the live member as Expected
// and Actual, and Verdict.Transition says so; the rest of the two answers
// is not compared (in schema mode the live error is still checked).
//
// The top-level "id" and "jsonrpc" members are never compared (ids are
// remapped during a replay).
//
// # Values
//
// A string holding a JSON object or array on both sides is compared as
// JSON, at the string's own path: a difference inside the text of
// result.content[0].text is reported at result.content[0].text.temp, and
// ignore patterns and required fields reach inside the same way.
//
// A recorded value that a redaction replaced by a marker (package tape,
// Redactor) stands for any live value of its kind, in every mode that
// compares values: "[redacted:key:TYPE]" accepts any TYPE (string,
// number, object, array), "[redacted:header]" any string, and a string
// with env markers ("Bearer [redacted:env:TOKEN]") any string with the
// rest of its text, each marker matching any text. A live value of
// another kind is a difference (type, or changed for a string).
//
// Normalisers (WithNormalize, validation.normalize) rewrite both sides'
// strings before they are compared; a difference still shows the values
// as they were. "timestamp": dates and times become <timestamp> — RFC 3339
// and ISO 8601 (2026-01-02, 2026-01-02T03:04:05.5Z, 2026-01-02
// 03:04+01:00), Go's time.String, JavaScript's Date.toString ("Mon Nov 23
// 2026 10:00:00 GMT+0000 (Coordinated Universal Time)") and toDateString,
// RFC 1123 as HTTP writes it ("Mon, 23 Nov 2026 10:00:00 GMT"), C's
// asctime and Unix date ("Mon Nov 23 10:00:00 UTC 2026"), the en-US
// locale ("11/23/2026, 10:00:00 AM"), its time of day alone
// ("3:04:05 PM"; a bare "10:00:00" may be a duration and stays); "uuid": UUIDs become <uuid>; "ids":
// words holding a digit that are all digits or at least 8 characters long
// ("item 1234", "req_8f3a2b9c", UUIDs) become <id>, so that "v2" stays.
// WithNormalizePattern adds a normaliser of one's own: each match of a
// regular expression becomes a placeholder ("took \d+ ms" → "took <n>
// ms"), so that one volatile value inside a text is tolerated and the rest
// of the text still compared. Patterns apply first, in the order given,
// then timestamp, uuid and ids; to strings only, never to numbers or
// member names.
//
// Tolerance (WithTolerance, validation.tolerance) lets numbers differ by
// up to an absolute amount, or by up to a fraction of the expected value;
// both bounds are inclusive.
//
// # Rules
//
// Rules are tried in order and the first whose scope matches decides the
// mode, the required and extra ignored fields, and on_failure ("error"
// unless said; retry gets DefaultRetries unless max_retries says). A
// scope's set fields are ANDed: method, kind, a seq range, session, when;
// always alone matches everything; an empty scope is an error. Kind "response" or "error" also matches a
// message whose recorded answer holds a result, or an error. A when
// expression is in the language of debug breakpoints (package match),
// over the request: seq, session, kind, method, id, params. Messages no
// rule matches use the Validator's mode.
//
// # Paths
//
// Paths and patterns are the one path language of replayctl
// (internal/jsonpath; README.md, section "Paths"), shared with the
// transformer's paths and the mock's volatile paths.
//
// A Difference names where it is with a path: `result.content[0].text`.
// Members whose names are not plain (letters, digits, '_' and '-') are
// written as quoted JSON strings in brackets: `result["a.b"]`. The root is
// `$`.
//
// Ignore patterns (WithIgnore) and required fields use the same syntax
// plus wildcards: `*` matches one member name, `[*]` any array index,
// `**` any run of zero or more segments (names or indices). A leading
// `$` is accepted and ignored (`$.a`, `$[0]`); a member whose name starts
// with `$` is quoted when first: `["$schema"]`. A pattern ignores the whole subtree it
// matches: "error.data", "result.content[*].annotations", "**.timestamp".
//
// # Order and limits
//
// Differences come in path order, segment by segment: member names
// bytewise, array indices numerically ([2] before [10]); in partial mode,
// per required field in the order listed; in schema mode, in the order of
// the checks. A transition comes first. The same inputs always give the
// same list. At most MaxDifferences are listed; when there are more, one
// last Difference of kind DiffTruncated, with an empty Path, carries the
// number left out as its Actual value (a JSON number).
//
// # Fast path
//
// Most answers match their recording byte for byte outside the id, so in
// exact and structural modes Check and Compare first compare the raw
// bytes of the top-level members other than "id" and "jsonrpc" (wherever
// those two sit) and return without decoding or allocating when they are
// identical, whatever the normalisers and tolerance. Picking the rule
// does not allocate either (unless a when predicate does). That fast path
// trusts the grammar of what it compares: identical bytes are equal,
// whether or not they are well-formed JSON. Only when something differs
// are both sides checked with json.Valid and walked.
//
// A Validator holds no mutable state and is safe for concurrent use.
package validator
