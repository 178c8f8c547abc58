package config

import "github.com/replayctl/replayctl/scheduler"

// File is a replay configuration file (--config replay.yaml), with the keys
// of DESIGN.md. Every key is optional; flags override it. Durations are
// strings like "50ms" or "1s" (Duration); speed strings are parsed by the
// scheduler package.
type File struct {
	Speed string `yaml:"speed"`
	// SpeedValue is Speed as Load and Parse read it (once, as they check
	// the file), for callers that take the typed value; the zero Speed
	// (realtime) when Speed is "".
	SpeedValue scheduler.Speed `yaml:"-"`
	// Warnings are what Load and Parse accept but doubt, each at its
	// file, line and key: an ignore path that ignores every answer whole
	// ("$", "**"). config check prints them; a replay logs them.
	Warnings          []*Error         `yaml:"-"`
	StartOffset       Duration         `yaml:"start_offset"`
	EndOffset         Duration         `yaml:"end_offset"`
	IncludeMethods    []string         `yaml:"include_methods"`
	ExcludeMethods    []string         `yaml:"exclude_methods"`
	SkipNotifications bool             `yaml:"skip_notifications"`
	Transformations   []Transformation `yaml:"transformations"`
	Validation        Validation       `yaml:"validation"`
	ErrorHandling     ErrorHandling    `yaml:"error_handling"`
	Performance       Performance      `yaml:"performance"`
	Chaos             Chaos            `yaml:"chaos"`
	Thresholds        []string         `yaml:"thresholds"`
	// History is the folder of the run store every run is kept in
	// (replayctl run --history; the REPLAYCTL_HISTORY environment
	// variable and the flag override it).
	History string `yaml:"history"`
}

// Transformation is one rule: a condition and an action.
type Transformation struct {
	Name      string    `yaml:"name"`
	Condition Condition `yaml:"condition"`
	Action    Action    `yaml:"action"`
	Line      int       `yaml:"-"` // where the rule starts in the file, for errors
}

// Condition says which messages a rule or a validation scope applies to.
// Set fields are ANDed; an empty condition matches nothing unless Always.
type Condition struct {
	Always       bool    `yaml:"always"`
	MethodEquals string  `yaml:"method_equals"`
	Method       string  `yaml:"method"` // same as method_equals (validation scopes use it)
	Kind         string  `yaml:"kind"`   // request | notification | response | error
	Seq          *int64  `yaml:"seq"`
	SeqRange     []int64 `yaml:"seq_range"` // [from, to], inclusive
	Session      string  `yaml:"session"`
	When         string  `yaml:"when"` // an expression, as debug breakpoints
}

// Action is what a rule does. Exactly one field is set per action; several
// may be set in one rule, applied in the order of the fields below.
type Action struct {
	SetParam     *SetValue    `yaml:"set_param"`
	RemoveParam  *PathOnly    `yaml:"remove_param"`
	ReplaceParam *Replace     `yaml:"replace_param"`
	SetResult    *SetValue    `yaml:"set_result"`
	InjectError  *InjectError `yaml:"inject_error"`
	RenameMethod *Rename      `yaml:"rename_method"`
	AddDelay     Duration     `yaml:"add_delay"`
	RegenerateID bool         `yaml:"regenerate_id"`
	Drop         bool         `yaml:"drop"`
}

// SetValue sets the JSON value at Path ("$.params.arguments.token").
// Value is any YAML value; strings may hold ${env.NAME}, {{uuid}}, {{now}},
// {{seq}} and {{session}}.
type SetValue struct {
	Path  string `yaml:"path"`
	Value any    `yaml:"value"`
}

// PathOnly names a path.
type PathOnly struct {
	Path string `yaml:"path"`
}

// Replace rewrites the string at Path by a regular expression.
type Replace struct {
	Path        string `yaml:"path"`
	Pattern     string `yaml:"pattern"`
	Replacement string `yaml:"replacement"`
}

// InjectError answers the request with this JSON-RPC error instead of
// sending it.
type InjectError struct {
	Code    int    `yaml:"code"`
	Message string `yaml:"message"`
	Data    any    `yaml:"data"`
}

// Rename renames the method.
type Rename struct {
	To string `yaml:"to"`
}

// Validation is the validation section.
type Validation struct {
	Enabled      *bool            `yaml:"enabled"` // nil: true
	Mode         string           `yaml:"mode"`    // exact | structural | partial | schema
	IgnoreFields []string         `yaml:"ignore_fields"`
	Normalize    []Normalizer     `yaml:"normalize"` // uuid, timestamp, ids, {regex, placeholder}
	Tolerance    Tolerance        `yaml:"tolerance"`
	Rules        []ValidationRule `yaml:"rules"`
}

// Normalizer is one entry of validation.normalize: a named normaliser,
// written as a string ("uuid", "timestamp", "ids"), or one of the user's
// own, written as a mapping: every match of Regex (a Go regular
// expression) becomes Placeholder, on both sides, before they are
// compared ("<match>" when no placeholder is given).
type Normalizer struct {
	Name        string `yaml:"-"`
	Regex       string `yaml:"regex"`
	Placeholder string `yaml:"placeholder"`
}

// DefaultPlaceholder is what a regex normaliser's matches become when it
// names no placeholder.
const DefaultPlaceholder = "<match>"

// Tolerance is the allowed numeric difference: absolute, or relative
// (a fraction of the expected value).
type Tolerance struct {
	Numeric  float64 `yaml:"numeric"`
	Relative float64 `yaml:"relative"`
}

// ValidationRule applies a mode to the messages its scope matches.
type ValidationRule struct {
	Scope          Condition `yaml:"scope"`
	Mode           string    `yaml:"mode"`
	RequiredFields []string  `yaml:"required_fields"`
	IgnoreFields   []string  `yaml:"ignore_fields"`
	OnFailure      string    `yaml:"on_failure"` // ignore | warn | error | retry | skip
	MaxRetries     int       `yaml:"max_retries"`
	Line           int       `yaml:"-"`
}

// ErrorHandling is the error_handling section.
type ErrorHandling struct {
	Strategy   string   `yaml:"strategy"` // continue | pause | stop | retry
	MaxRetries *int     `yaml:"max_retries"`
	RetryDelay Duration `yaml:"retry_delay"`
}

// Performance is the performance section.
type Performance struct {
	MaxInflight int      `yaml:"max_inflight"`
	Sessions    int      `yaml:"sessions"`
	Ramp        Duration `yaml:"ramp"`
	Timeout     Duration `yaml:"timeout"`
	// Spin is how long before a paced message's due time its session
	// yields in a loop instead of sleeping (nil: the default, 1ms; 0:
	// never).
	Spin *Duration `yaml:"spin"`
	// GCHeadroom is how much garbage a replay may make between two of Go's
	// collections while it runs (nil: the default, 64 MiB; 0: Go's own
	// pace, GOGC).
	GCHeadroom *Size `yaml:"gc_headroom"`
}

// Chaos is the chaos section.
type Chaos struct {
	Seed    *int64             `yaml:"seed"`
	Faults  map[string]float64 `yaml:"faults"`
	Targets []ChaosTarget      `yaml:"targets"`
}

// ChaosTarget aims a fault at a method, or at the Nth call of a method.
type ChaosTarget struct {
	Method      string  `yaml:"method"`
	Nth         int     `yaml:"nth"` // 1-based; 0: every call, with Probability
	Fault       string  `yaml:"fault"`
	Probability float64 `yaml:"probability"`
}
