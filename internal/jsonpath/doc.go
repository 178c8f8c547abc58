// Package jsonpath is the one path language of replayctl: the paths that
// name a place in a JSON-RPC message ("$.params.arguments.city",
// "result.content[0].text") and the patterns that name many
// ("result.content[*].annotations", "**.timestamp").
//
// The validator's ignore patterns and required fields, the transformer's
// action paths, the mock's volatile paths, the paths of a Difference, of a
// contract and of a tape diff are all read with Parse or ParsePath and
// written with Render, Pattern.String or Rooted. README.md, section "Paths",
// documents the syntax for users.
//
// # Syntax
//
//	path   = "$" | [ "$" ] first { step }
//	first  = name | bracket            (the first member may go without its dot;
//	                                    after "$" it needs one: "$.a", "$[0]")
//	step   = "." name | bracket
//	name   = "*" | "**" | bare
//	bare   = one or more characters other than . [ ] " * , a space, a
//	         control character or DEL
//	bracket = "[" digits "]" | "[*]" | "[" JSON string "]" | "['" text "']"
//
// A bare name is one member; a quoted one (`["a.b"]`, `["é"]`, `['a b']`;
// in single quotes no escapes) is any member name at all. [n] is an array
// index (leading zeros allowed: [007] is [7]). "*" matches one member name,
// "[*]" one array index, "**" any run of zero or more steps ("**.**" is
// "**"). "$" alone is the whole document; a leading "$" is the root and
// says nothing more ("$.a" is "a"). Text must be valid UTF-8.
//
// # Rendering
//
// Render and Pattern.String write the difference form, without "$.":
// names of letters, digits, '_' and '-' bare, every other name quoted
// (`result["a.b"]`, `a["é"]`), "$" for the root. Rooted writes the edit
// form the transformer prints: "$" first, and names bare unless the
// grammar would not read them back bare (`$.tools/call`, `$["a b"]`).
// Both parse back to the same path.
//
// Errors are *SyntaxError: the source, the 1-based column, what is wrong
// and what to write instead.
package jsonpath
