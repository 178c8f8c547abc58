package tapediff

import (
	"encoding/json"
	"fmt"
)

// Kind names what changed between tape A and tape B.
type Kind string

// The kinds of change Compare reports. Breaking ones are those a client
// written against A may fail on when it talks to B (see Breaking).
const (
	// A tool, resource, resource template or prompt that B no longer
	// lists (breaking), or that only B lists.
	ToolRemoved             Kind = "tool_removed"
	ToolAdded               Kind = "tool_added"
	ResourceRemoved         Kind = "resource_removed"
	ResourceAdded           Kind = "resource_added"
	ResourceTemplateRemoved Kind = "resource_template_removed"
	ResourceTemplateAdded   Kind = "resource_template_added"
	PromptRemoved           Kind = "prompt_removed"
	PromptAdded             Kind = "prompt_added"

	// Inputs: a tool's inputSchema, a prompt's arguments.
	RequiredAdded     Kind = "required_added"      // a new input field that is required (breaking)
	ParamMadeRequired Kind = "param_made_required" // an optional input field now required (breaking)
	PropertyRemoved   Kind = "property_removed"    // a property gone from an input or output schema (breaking)
	ParamAdded        Kind = "param_added"         // a new optional input field
	ParamMadeOptional Kind = "param_made_optional" // a required input field now optional
	PropertyAdded     Kind = "property_added"      // a new property of an output schema
	TypeChanged       Kind = "type_changed"        // a schema's "type" differs (breaking)
	SchemaChanged     Kind = "schema_changed"      // another schema keyword differs (enum, $defs, …)

	DescriptionChanged Kind = "description_changed" // a definition's or a property's description
	DefinitionChanged  Kind = "definition_changed"  // another member of a definition (title, annotations, mimeType, …)

	// The handshake: initialize or server/discover.
	ProtocolVersionChanged Kind = "protocol_version_changed" // breaking
	CapabilityRemoved      Kind = "capability_removed"       // breaking
	CapabilityAdded        Kind = "capability_added"
	CapabilityChanged      Kind = "capability_changed"
	ServerInfoChanged      Kind = "server_info_changed"
	InstructionsChanged    Kind = "instructions_changed"

	// The answers of paired requests.
	SuccessToError Kind = "success_to_error" // a result is now a JSON-RPC error or a tool result with isError (breaking)
	AnswerMissing  Kind = "answer_missing"   // A's request was answered, B's was not (breaking)
	ErrorToSuccess Kind = "error_to_success"
	AnswerAdded    Kind = "answer_added" // B's request was answered, A's was not
	ErrorChanged   Kind = "error_changed"
	AnswerChanged  Kind = "answer_changed"  // the content of a result, after the normalisers
	RequestChanged Kind = "request_changed" // the params of two requests paired by method and name
)

// breaking lists the kinds that are breaking changes.
var breaking = map[Kind]bool{
	ToolRemoved: true, ResourceRemoved: true, ResourceTemplateRemoved: true, PromptRemoved: true,
	RequiredAdded: true, ParamMadeRequired: true, PropertyRemoved: true, TypeChanged: true,
	ProtocolVersionChanged: true, CapabilityRemoved: true,
	SuccessToError: true, AnswerMissing: true,
}

// Breaking reports whether a change of kind k is breaking: a client
// written against tape A's server may fail against B's.
func (k Kind) Breaking() bool { return breaking[k] }

// Kinds lists every kind, breaking ones first, in a fixed order.
func Kinds() []Kind {
	return []Kind{
		ToolRemoved, ResourceRemoved, ResourceTemplateRemoved, PromptRemoved,
		RequiredAdded, ParamMadeRequired, PropertyRemoved, TypeChanged,
		ProtocolVersionChanged, CapabilityRemoved, SuccessToError, AnswerMissing,
		ToolAdded, ResourceAdded, ResourceTemplateAdded, PromptAdded,
		ParamAdded, ParamMadeOptional, PropertyAdded, SchemaChanged,
		DescriptionChanged, DefinitionChanged,
		CapabilityAdded, CapabilityChanged, ServerInfoChanged, InstructionsChanged,
		ErrorToSuccess, AnswerAdded, ErrorChanged, AnswerChanged, RequestChanged,
	}
}

// Change is one difference between tape A and tape B.
type Change struct {
	Kind     Kind   `json:"kind"`
	Breaking bool   `json:"breaking"`
	Method   string `json:"method"`         // the method whose answers show it: tools/list, initialize, tools/call…
	Name     string `json:"name,omitempty"` // the tool, prompt or capability name, or the resource URI
	// Path is where, inside the definition or the answer, in the
	// validator's path syntax (inputSchema.properties.message,
	// result.content[0].text); "" for a whole definition.
	Path string `json:"path,omitempty"`
	// A and B are the JSON values at Path in tape A and tape B; absent
	// (nil) on the side that has none.
	A json.RawMessage `json:"a,omitempty"`
	B json.RawMessage `json:"b,omitempty"`
	// Detail says more in words: the validator's kind of difference
	// (changed, added, removed, type), or what an error transition was.
	Detail  string `json:"detail,omitempty"`
	Session string `json:"session,omitempty"` // tape A's session name
	// SeqA and SeqB are the seqs of the answers compared (for catalog
	// and handshake changes, of a listing answer); -1 for none.
	SeqA int64 `json:"seq_a"`
	SeqB int64 `json:"seq_b"`
}

// Unpaired is a request of one tape that has no partner in the other.
type Unpaired struct {
	Side    string `json:"side"` // "a" or "b"
	Session string `json:"session"`
	Seq     int64  `json:"seq"`
	Line    int64  `json:"line,omitempty"`
	Dir     string `json:"dir"` // c2s: the client's request; s2c: the server's
	Method  string `json:"method"`
	Name    string `json:"name,omitempty"`
}

// Summary counts what Compare found.
type Summary struct {
	MessagesA   int            `json:"messages_a"`
	MessagesB   int            `json:"messages_b"`
	RequestsA   int            `json:"requests_a"`
	RequestsB   int            `json:"requests_b"`
	Paired      int            `json:"paired"`
	UnpairedA   int            `json:"unpaired_a"`
	UnpairedB   int            `json:"unpaired_b"`
	Changes     int            `json:"changes"`
	Breaking    int            `json:"breaking"`
	NonBreaking int            `json:"non_breaking"`
	ByKind      map[string]int `json:"by_kind"`
}

// Result is what Compare found: the changes (breaking first, then by
// method, name and path), the unpaired requests (A's, then B's, in seq
// order) and their counts.
type Result struct {
	Summary  Summary    `json:"summary"`
	Changes  []Change   `json:"changes"`
	Unpaired []Unpaired `json:"unpaired"`
}

// Error is a message of a tape that Compare cannot read: not a JSON-RPC
// 2.0 message. It names the tape, the line and the seq.
type Error struct {
	Tape string // the tape's name (Side.Name)
	Line int64  // 1-based; 0 when not known
	Seq  int64
	Err  error
}

func (e *Error) Error() string {
	where := e.Tape
	if e.Line > 0 {
		where = fmt.Sprintf("%s line %d", where, e.Line)
	}
	return fmt.Sprintf("%s (seq %d): %v; fix or remove that line (replayctl inspect shows the tape)", where, e.Seq, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
