// Package tapediff says what changed between two tapes of the same client
// script — recorded, say, against version 1 and version 2 of a server —
// and which of those changes are breaking: a client written against the
// first server may fail against the second.
//
// Compare takes the two tapes' messages (Side) and returns a Result: the
// changes, breaking first, then grouped by method and name; the requests
// of either tape that have no partner in the other; and counts. It is a
// pure function over values, with no I/O and no goroutines.
//
// # Pairing
//
// Messages are paired by session and request order, not by seq (the two
// tapes may differ in length): within a session and a direction, the k-th
// request of a method with given params in A goes with the k-th in B;
// params are compared without their volatile members (_meta,
// requestState). Requests left then pair by method and name (the tool or
// prompt name, or the resource URI), in order, and their params are
// compared (request_changed). What is left is unpaired.
//
// # What is compared
//
//   - The handshake (the answer to initialize, or to server/discover in
//     the stateless revision): the protocol version (the tape header's, or
//     the answer's), capabilities at any depth, serverInfo, instructions.
//   - The catalogs: every tool, resource, resource template and prompt in
//     the answers to tools/list, resources/list, resources/templates/list
//     and prompts/list (all pages), by name, uri or uriTemplate. A tool's
//     inputSchema and outputSchema are compared keyword by keyword, into
//     the properties both have and into items; a prompt's arguments by
//     name; the other members of a definition through the validator.
//   - The answers of paired requests: a result turned into an error or
//     back, an answer gone or new, and then every path where the results
//     (or errors) differ, as package validator finds it, with its
//     normalisers, ignored paths and tolerance (WithValidator). Answers to
//     the listing and handshake methods are compared as definitions, not
//     value by value.
//
// # Breaking changes
//
// Kind.Breaking says which kinds break a client: a tool, resource,
// resource template or prompt removed (tool_removed, …); a required input
// field added (required_added) or an optional one made required
// (param_made_required); a property removed from an input or an output
// schema, or a prompt argument removed (property_removed); a schema's type
// changed, input or output (type_changed); a result that is now a JSON-RPC
// error or a tool result with isError true (success_to_error); an answer
// gone (answer_missing); a capability removed, at any depth, or a flag
// of one turned from true to false (capability_removed); the protocol
// version changed
// (protocol_version_changed). Everything else — additions, optional
// parameters, descriptions, other schema keywords, answer content — is
// reported and not breaking.
//
// # Paths
//
// Change.Path is in the validator's path syntax. For a definition it is
// relative to the definition (inputSchema.properties.message,
// annotations.readOnlyHint; a prompt argument is arguments.NAME); for an
// answer it starts at the member compared (result.content[0].text,
// error.code, params.arguments.x); for a capability,
// capabilities.resources.subscribe. Ignore patterns given to the
// validator apply to answers, params and the members of definitions
// other than the schemas and descriptions, written as for the listing
// answer: result.tools[*].annotations.
//
// # Cost
//
// Both tapes are held in memory as the caller gives them; Compare decodes
// each request's params once (to pair them) and decodes answers only when
// their bytes differ.
package tapediff
