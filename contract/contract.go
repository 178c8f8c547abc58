package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/replayctl/replayctl/jsonrpc"
	"github.com/replayctl/replayctl/mcp"
	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/validator"
)

// Format and Version name a contract file ("format" and "version").
const (
	Format  = "replayctl-contract"
	Version = 1
)

// Contract is what a server's recorded answers promise, per tool,
// resource and prompt. It is written as JSON (Write) and read back (Read).
type Contract struct {
	Format  string   `json:"format"`
	Version int      `json:"version"`
	Tapes   []string `json:"tapes"` // what it was drawn from
	// Tools by name, Resources by URI, Prompts by name.
	Tools     map[string]*Entry `json:"tools"`
	Resources map[string]*Entry `json:"resources"`
	Prompts   map[string]*Entry `json:"prompts"`
}

// Entry is the contract of one tool, resource or prompt.
type Entry struct {
	// Input is what it takes: a tool's inputSchema as its tools/list
	// answer gave it (the last one recorded), a prompt's arguments as a
	// schema (an object with a string member per argument, required as
	// the prompt says); none for a resource.
	Input json.RawMessage `json:"input,omitempty"`
	// Output is the schema of the result of tools/call, resources/read or
	// prompts/get, inferred from every result recorded (Schema); nil
	// when none was.
	Output *Schema `json:"output,omitempty"`
	// Samples counts the results Output rests on; Errors the JSON-RPC
	// errors recorded instead.
	Samples int `json:"samples"`
	Errors  int `json:"errors"`
}

// New returns an empty contract.
func New() *Contract {
	return &Contract{Format: Format, Version: Version, Tapes: []string{},
		Tools: map[string]*Entry{}, Resources: map[string]*Entry{}, Prompts: map[string]*Entry{}}
}

// Draw draws the contract of the tapes' server from every answer they
// recorded: tools/list and prompts/list give the inputs; each result of
// tools/call, resources/read and prompts/get is a sample of its output
// schema. A member absent from one sample is optional; an enum and a
// format are drawn only from values that repeat (see Schema). Errors
// are the tapes' (*tape.Error).
func Draw(srcs ...tape.Source) (*Contract, error) {
	c := New()
	for _, src := range srcs {
		if err := c.add(src); err != nil {
			return nil, err
		}
	}
	for _, m := range []map[string]*Entry{c.Tools, c.Resources, c.Prompts} {
		for _, e := range m {
			if e.Output != nil {
				e.Output.Finish()
			}
		}
	}
	return c, nil
}

// asked is a request of the tape waiting for its answer.
type asked struct{ method, name string }

// add adds what the tape src recorded.
func (c *Contract) add(src tape.Source) error {
	r, err := tape.OpenSource(src)
	if err != nil {
		return err
	}
	defer r.Close()
	c.Tapes = append(c.Tapes, src.Name())
	waiting := map[string]asked{} // by session and id
	for {
		m, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		msg, err := jsonrpc.Parse(m.Msg)
		if err != nil {
			continue // the replay says so; a contract has nothing to draw from it
		}
		key := m.Session + "\x00" + jsonrpc.IDKey(msg.ID)
		switch {
		case m.Dir == tape.C2S && msg.Kind == jsonrpc.KindRequest:
			waiting[key] = asked{msg.Method, mcp.RequestName(msg.Method, msg.Params())}
		case m.Dir == tape.S2C && jsonrpc.IsResponseKind(msg.Kind):
			q, ok := waiting[key]
			if !ok {
				continue
			}
			delete(waiting, key)
			c.answer(q, msg)
		}
	}
}

// answer adds the answer msg to the request q.
func (c *Contract) answer(q asked, msg jsonrpc.Message) {
	if msg.Kind == jsonrpc.KindError {
		if e := c.entry(q.method, q.name); e != nil {
			e.Errors++
		}
		return
	}
	switch q.method {
	case mcp.MethodToolsList:
		var res struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		if json.Unmarshal(msg.Result(), &res) == nil {
			for _, t := range res.Tools {
				if t.Name != "" {
					c.entry(mcp.MethodToolsCall, t.Name).Input = t.InputSchema
				}
			}
		}
		return
	case mcp.MethodPromptsList:
		var res struct {
			Prompts []struct {
				Name      string `json:"name"`
				Arguments []struct {
					Name     string `json:"name"`
					Required bool   `json:"required"`
				} `json:"arguments"`
			} `json:"prompts"`
		}
		if json.Unmarshal(msg.Result(), &res) == nil {
			for _, p := range res.Prompts {
				if p.Name == "" {
					continue
				}
				props, required := map[string]any{}, []string{}
				for _, a := range p.Arguments {
					props[a.Name] = map[string]string{"type": "string"}
					if a.Required {
						required = append(required, a.Name)
					}
				}
				in := map[string]any{"type": "object", "properties": props, "required": required}
				c.entry(mcp.MethodPromptsGet, p.Name).Input, _ = json.Marshal(in)
			}
		}
		return
	}
	e := c.entry(q.method, q.name)
	if e == nil {
		return
	}
	v, err := decode(msg.Result())
	if err != nil {
		return
	}
	if e.Output == nil {
		e.Output = &Schema{}
	}
	e.Output.Observe(v)
	e.Samples++
}

// entry is the entry of what the request method acts on (name), made if
// need be; nil for a method that is not a tool, resource or prompt call.
func (c *Contract) entry(method, name string) *Entry {
	var m map[string]*Entry
	switch method {
	case mcp.MethodToolsCall:
		m = c.Tools
	case mcp.MethodResourcesRead:
		m = c.Resources
	case mcp.MethodPromptsGet:
		m = c.Prompts
	default:
		return nil
	}
	if name == "" {
		return nil
	}
	e := m[name]
	if e == nil {
		e = &Entry{}
		m[name] = e
	}
	return e
}

// Write writes c as indented JSON.
func (c *Contract) Write(w io.Writer) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ErrNotContract is wrapped by Read's error for a document that is not a
// contract.
var ErrNotContract = errors.New("not a replayctl contract")

// Read reads a contract Write wrote. Its errors say what is wrong: not
// JSON, not a contract (wrapping ErrNotContract), another version.
func Read(r io.Reader) (*Contract, error) {
	var c Contract
	d := json.NewDecoder(r)
	if err := d.Decode(&c); err != nil {
		return nil, fmt.Errorf("not a contract (JSON): %w", err)
	}
	if c.Format != Format {
		return nil, fmt.Errorf("%w: no \"format\": %q member (draw one with replayctl contract TAPE...)", ErrNotContract, Format)
	}
	if c.Version != Version {
		return nil, fmt.Errorf("contract version %d: this replayctl reads version %d", c.Version, Version)
	}
	for _, m := range []*map[string]*Entry{&c.Tools, &c.Resources, &c.Prompts} {
		if *m == nil {
			*m = map[string]*Entry{}
		}
		for k, e := range *m {
			if e == nil { // null: nothing known of it
				(*m)[k] = &Entry{}
				continue
			}
			e.Output.fill()
		}
	}
	return &c, nil
}

// fill replaces the null schemas below s (in a file read) by empty ones,
// which allow any value.
func (s *Schema) fill() {
	if s == nil {
		return
	}
	for k, p := range s.Properties {
		if p == nil {
			s.Properties[k] = &Schema{}
		}
		s.Properties[k].fill()
	}
	s.Items.fill()
}

// CheckAnswer checks the live answer to a tools/call, resources/read or
// prompts/get against the contract of what it called: a tool, resource
// or prompt the contract does not have is one difference at "$"; else
// each place where the result is not what the output schema allows is
// one, its path from "result". A tools/list answer is checked against
// the tools' inputs (checkTools); the answers of other methods pass. It
// is validator.AnswerChecker for mode contract and safe for concurrent
// use.
func (c *Contract) CheckAnswer(s validator.Subject, actual []byte) []validator.Difference {
	req, err := jsonrpc.Parse(s.Request)
	if err != nil {
		return nil
	}
	name := mcp.RequestName(req.Method, req.Params())
	var m map[string]*Entry
	what := ""
	switch req.Method {
	case mcp.MethodToolsCall:
		m, what = c.Tools, "tool"
	case mcp.MethodResourcesRead:
		m, what = c.Resources, "resource"
	case mcp.MethodPromptsGet:
		m, what = c.Prompts, "prompt"
	case mcp.MethodToolsList:
		return c.checkTools(actual)
	default:
		return nil
	}
	e, ok := m[name]
	if !ok {
		return []validator.Difference{diff(nil, validator.DiffAdded, fmt.Sprintf("a %s of the contract (%s)", what, names(m)), name)}
	}
	if e.Output == nil {
		return nil // no result was recorded: nothing to hold it to
	}
	msg, err := jsonrpc.Parse(actual)
	if err != nil || msg.Kind != jsonrpc.KindResponse {
		return nil
	}
	v, err := decode(msg.Result())
	if err != nil {
		return nil
	}
	return e.Output.check(elems{member("result")}, v, nil)
}

// checkTools checks a live tools/list answer: a tool of the contract it
// lists must take what the contract's input schema says a client may
// send (Diff's breaking input changes: a member removed, newly required
// or of another type). Tools it does not list may be on another page.
func (c *Contract) checkTools(actual []byte) []validator.Difference {
	msg, err := jsonrpc.Parse(actual)
	if err != nil || msg.Kind != jsonrpc.KindResponse {
		return nil
	}
	var res struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(msg.Result(), &res) != nil {
		return nil // schema mode says what is wrong with it
	}
	var ds []validator.Difference
	for i, t := range res.Tools {
		e := c.Tools[t.Name]
		if e == nil || len(e.Input) == 0 {
			continue
		}
		for _, ch := range diffInput(nil, "", e.Input, t.InputSchema) {
			if !ch.Breaking {
				continue
			}
			path := elems{member("result"), member("tools"), element(i), member("inputSchema")}
			if ch.Kind == "required" {
				path = append(path, member("required"))
			} else {
				path = append(path, member("properties"), member(ch.Path))
			}
			kind := validator.DiffType
			switch ch.Kind {
			case "removed":
				kind = validator.DiffMissing
			case "added", "required":
				kind = validator.DiffAdded
			}
			ds = append(ds, validator.Difference{Path: render(path), Kind: kind, Expected: ch.A, Actual: ch.B})
		}
	}
	return ds
}

// names lists the names of m, sorted, for a message.
func names(m map[string]*Entry) string {
	ns := slices.Sorted(maps.Keys(m))
	if len(ns) > 8 {
		ns = append(ns[:8], "…")
	}
	b, _ := json.Marshal(ns)
	return string(b)
}

var _ validator.AnswerChecker = (*Contract)(nil)
