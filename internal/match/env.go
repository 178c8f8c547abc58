package match

import "encoding/json"

// Env is one message as expressions see it, decoded at most once however
// many conditions are checked against it. The zero Env holds the zero
// Msg; Reset it for each message. An Env belongs to one goroutine.
type Env struct {
	m      Msg
	v      vars
	filled bool
}

// Reset makes e hold m, not yet decoded.
func (e *Env) Reset(m Msg) {
	*e = Env{m: m}
}

// Msg returns the message e holds.
func (e *Env) Msg() Msg { return e.m }

// vars is what an expression sees of a message.
type vars struct {
	Seq     int64  `expr:"seq"`
	Session string `expr:"session"`
	Dir     string `expr:"dir"`
	Kind    string `expr:"kind"`
	Method  string `expr:"method"`
	ID      any    `expr:"id"`
	Params  any    `expr:"params"`
	Result  any    `expr:"result"`
	Error   any    `expr:"error"`
}

// fill decodes the message once; a message that is not a JSON object
// leaves id, params, result and error nil.
func (e *Env) fill() {
	if e.filled {
		return
	}
	e.filled = true
	m := e.m
	e.v = vars{Seq: m.Seq, Session: m.Session, Dir: m.Dir, Kind: m.Kind, Method: m.Method}
	var doc struct {
		ID     any `json:"id"`
		Params any `json:"params"`
		Result any `json:"result"`
		Error  any `json:"error"`
	}
	if json.Unmarshal(m.Raw, &doc) == nil {
		e.v.ID, e.v.Params, e.v.Result, e.v.Error = doc.ID, doc.Params, doc.Result, doc.Error
	}
}
