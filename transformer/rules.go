package transformer

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/replayctl/replayctl/internal/match"
)

// Msg is what a rule sees of a message: its place in the tape and its
// bytes.
type Msg = match.Msg

// Outcome is what the rules that matched a message ask for.
type Outcome struct {
	// Out is the bytes to send; nil when the message is unchanged. Only
	// the edited values differ from the recorded bytes.
	Out []byte
	// Drop: do not send the message (drop).
	Drop bool
	// Delay is added before sending (add_delay, summed over the rules).
	Delay time.Duration
	// Error is a JSON-RPC error object, {"code":…,"message":…}
	// (inject_error): do not send the request, answer it with this.
	Error []byte
	// ExpectEdits are edits to the recorded answer of the message
	// (set_result): what the validator should expect. Apply them with
	// ApplyEdits.
	ExpectEdits []Edit
	// RegenerateID: give the request a fresh id (regenerate_id).
	RegenerateID bool
	// Applied names the rules that matched, in order: the rule's name,
	// or "#i" (1-based) for a rule without one.
	Applied []string
}

// Rules is a compiled list of transformation rules. It is immutable and
// safe for concurrent use.
type Rules struct {
	rules   []rule
	secrets []string
	vars    map[string]string // the variables secrets came from: name → value
	now     func() time.Time
	uuid    func() string
}

// Option configures Compile.
type Option func(*options)

type options struct {
	env  func(string) (string, bool)
	now  func() time.Time
	uuid func() string
}

// WithEnv sets where ${env.NAME} values come from; os.LookupEnv by
// default.
func WithEnv(lookup func(string) (string, bool)) Option {
	return func(o *options) { o.env = lookup }
}

// WithClock sets the clock of {{now}}; time.Now by default.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithUUID sets the source of {{uuid}}; random (version 4) UUIDs of
// github.com/google/uuid by default.
func WithUUID(newUUID func() string) Option {
	return func(o *options) { o.uuid = newUUID }
}

// Compile checks and compiles transformation rules (package replay
// translates a config file's transformations into them). Every
// ${env.NAME} is read now: an unset one is an error. Errors are
// *RuleError, naming the rule (its name, or #i) and its line, and saying
// what to write instead.
func Compile(specs []RuleSpec, opts ...Option) (*Rules, error) {
	o := options{env: os.LookupEnv, now: time.Now, uuid: uuid.NewString}
	for _, opt := range opts {
		opt(&o)
	}
	r := &Rules{now: o.now, uuid: o.uuid}
	env := func(name string) (string, bool) { // remembers what Secrets came from
		v, ok := o.env(name)
		if ok && v != "" {
			if r.vars == nil {
				r.vars = map[string]string{}
			}
			r.vars[name] = v
		}
		return v, ok
	}
	for i, spec := range specs {
		ru, err := compileRule(i, spec, env, &r.secrets)
		if err != nil {
			return nil, err
		}
		r.rules = append(r.rules, ru)
	}
	return r, nil
}

// Len returns the number of rules.
func (r *Rules) Len() int { return len(r.rules) }

// Secrets returns every value that came from ${env.…}, so that the
// engine can redact them from reports and logs.
func (r *Rules) Secrets() []string { return slices.Clone(r.secrets) }

// SecretVars are the variables the Secrets came from (${env.NAME}), by
// name, so that a warning about a secret can name its variable.
func (r *Rules) SecretVars() map[string]string { return maps.Clone(r.vars) }

// Apply runs the rules over m, in order, each on the bytes the one before
// left, and returns what they ask for. Conditions are checked against m
// as recorded, so a rule's edits never change which later rules apply. A
// rule that drops the message ends the list. Apply is a pure function of
// m (and the clock and UUIDs of the templates); with no rule matching it
// does not allocate.
//
// Errors name the rule and m's seq: a "when" expression that fails at run
// time, a path that runs into a value of another type, a replace_param on
// something that is not a string, a rename_method on an answer.
func (r *Rules) Apply(m Msg) (Outcome, error) {
	var env *match.Env // decoded on the first "when" that needs it
	var st *state      // made on the first match
	for i := range r.rules {
		ru := &r.rules[i]
		ok, err := ru.cond.match(&m, &env)
		if err != nil {
			return Outcome{}, fmt.Errorf("%s at seq %d: %w", ru.where, m.Seq, err)
		}
		if !ok {
			continue
		}
		if st == nil {
			st = &state{cur: m.Raw, fill: fill{seq: m.Seq, session: m.Session, newUUID: r.uuid, clock: r.now}}
		}
		st.o.Applied = append(st.o.Applied, ru.name)
		for _, a := range ru.acts {
			if err := a.apply(st); err != nil {
				return Outcome{}, fmt.Errorf("%s at seq %d: %w", ru.where, m.Seq, err)
			}
		}
		if st.o.Drop {
			break
		}
	}
	if st == nil {
		return Outcome{}, nil
	}
	if st.changed {
		st.o.Out = st.cur
	}
	return st.o, nil
}
