// Package transformer changes recorded messages before they are replayed:
// fresh request ids per replay (IDs), and the rules of a config file's
// "transformations" (Rules): condition → actions.
//
// # Rules
//
// Compile checks a []RuleSpec once (package replay translates the config
// file's transformations into them); Rules.Apply is then a pure function
// of a message, safe for concurrent use, that allocates nothing when no
// rule matches (the engine calls it for every message).
//
// A condition's set fields are ANDed: always, method_equals (or method),
// kind (request, notification, response, error), seq, seq_range
// [from, to] (inclusive), session, and when — an expression of package
// match, the language of debug breakpoints:
//
//	when: 'params.arguments.city == "Paris" && seq > 10'
//
// Conditions see the message as recorded, so one rule's edits never change
// which later rules apply. The rules apply in order, each to the bytes the
// one before left; a rule that drops the message ends the list.
//
// Actions, applied in this order within a rule:
//
//	set_param     {path, value}   set (or add) a value under params
//	remove_param  {path}          remove it, and one comma next to it
//	replace_param {path, pattern, replacement}  regexp on a string value ($1 for groups)
//	set_result    {path, value}   edit the recorded answer: what the validator expects (Outcome.ExpectEdits)
//	inject_error  {code, message, data}  answer with this error instead of sending (Outcome.Error)
//	rename_method {to}
//	add_delay     50ms            summed over the rules (Outcome.Delay)
//	regenerate_id true            Outcome.RegenerateID; the engine takes a fresh id from IDs
//	drop          true            do not send it
//
// Paths are in the one path language of replayctl (internal/jsonpath;
// README.md, section "Paths"), without wildcards:
// "$.params.arguments.city", "params.items[0]", `$["odd.name"]`. The paths of the *_param actions lie under params, and
// those of set_result under result (or error): "arguments.city" is read as
// "$.params.arguments.city", "content[0].text" as "$.result.content[0].text".
//
// Values are any YAML value, written as JSON. Strings may hold
// ${env.NAME}, read once by Compile (unset: an error that names the rule
// and its line; every value taken is in Rules.Secrets, for the engine to
// redact from reports and logs), and the templates {{uuid}}, {{now}}
// (RFC 3339, UTC), {{seq}} and {{session}}, filled per message; every
// {{uuid}} of one message is the same UUID.
//
// # Byte fidelity
//
// Edits work on the recorded bytes (GetPath, SetPath, RemovePath, on
// spans found with internal/jsonscan): setting a value replaces its bytes
// only, a new member is spliced in before its object's closing brace, a
// removed member takes one adjacent comma with it. Every other byte, odd
// spacing included, goes out as recorded.
package transformer
