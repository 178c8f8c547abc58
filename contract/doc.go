// Package contract draws a server's contract from recordings and checks
// live answers against it.
//
// Draw reads tapes and makes, per tool (by name), resource (by URI) and
// prompt (by name), an Entry: its input (a tool's inputSchema from
// tools/list, a prompt's arguments from prompts/list) and an output
// schema inferred from every result of tools/call, resources/read and
// prompts/get recorded (Schema: the JSON types seen, the members present
// in every sample as required, enums of values that repeat, formats every
// sample has), with the number of samples it rests on. Inference is
// conservative: a member absent from one sample is optional, and members
// never seen are allowed.
//
// A Contract is a validator.AnswerChecker: `replayctl run --contract
// FILE` (replay.Contract) checks each live answer against it in the
// validator's mode contract, beside what MCP itself requires of the
// answer. Diff compares two contracts and says which changes break a
// client.
package contract
