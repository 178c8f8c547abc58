package transformer

import "time"

// RuleSpec is one transformation rule as Compile takes it: which messages
// it applies to and what it does to them.
type RuleSpec struct {
	// Name names the rule in Outcome.Applied and in errors; "" is "#i"
	// (1-based).
	Name string
	// Line is where the rule was written (the config file's line), for
	// errors; 0 when it has no place.
	Line      int
	Condition Condition
	Action    Action
}

// Condition says which messages a rule applies to, as recorded. Its set
// fields are ANDed; Always alone matches every message, and a condition
// with nothing set is an error (it would match nothing).
type Condition struct {
	Always   bool
	Method   string
	Kind     string    // request, notification, response or error
	Seq      *int64    // exactly this seq (0 or more)
	SeqRange *SeqRange // seqs in this range
	Session  string
	// When is an expression of package match, the language of debug
	// breakpoints: `params.arguments.city == "Paris" && seq > 10`.
	When string
}

// SeqRange is the seqs From to To, both included; 0 <= From <= To.
type SeqRange struct {
	From, To int64
}

// Action is what a rule does. Several fields may be set; they apply in
// the order below (see the package documentation for each). Drop is
// meant alone: a dropped message is never sent.
type Action struct {
	SetParam     *SetValue
	RemoveParam  *Remove
	ReplaceParam *Replace
	SetResult    *SetValue
	InjectError  *InjectError
	RenameMethod *Rename
	AddDelay     time.Duration // 0: none; never negative
	RegenerateID bool
	Drop         bool
}

// SetValue sets the JSON value at Path. Value is any value that
// encoding/json can write (maps, slices, strings, numbers, bools, nil, as
// decoded YAML gives them); its strings may hold ${env.NAME}, {{uuid}},
// {{now}}, {{seq}} and {{session}}.
type SetValue struct {
	Path  string
	Value any
}

// Remove removes the value at Path.
type Remove struct {
	Path string
}

// Replace rewrites the string at Path by the regular expression Pattern;
// Replacement may use $1 for groups, ${env.NAME} and the templates.
type Replace struct {
	Path        string
	Pattern     string
	Replacement string
}

// InjectError answers the request with this JSON-RPC error instead of
// sending it. Message and the strings of Data may hold ${env.NAME} and
// the templates.
type InjectError struct {
	Code    int
	Message string
	Data    any // nil: no data member
}

// Rename renames the message's method to To.
type Rename struct {
	To string
}
