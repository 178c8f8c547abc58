package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session runs the client script in one connected session.
type session struct {
	ctx     context.Context
	cs      *mcp.ClientSession
	k       int
	changed bool
	secret  string
}

// toolRole is a tool call of the script: the first of candidates the
// server lists is called, with the arguments args gives for it.
type toolRole struct {
	role       string
	candidates []string
	args       func(tool string) map[string]any
}

// run runs the script (see package testclient) after initialize and
// returns its steps; it stops at the first step that fails.
func (s *session) run() []step {
	var out []step
	add := func(st step) bool {
		out = append(out, st)
		return st.OK
	}

	tools, err := s.cs.ListTools(s.ctx, nil)
	if !add(done(s.k, "tools/list", tools, err)) {
		return out
	}
	names := make([]string, 0, len(tools.Tools))
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	for _, r := range s.toolRoles() {
		if !add(s.callRole(names, r)) {
			return out
		}
	}

	res, err := s.cs.ListResources(s.ctx, nil)
	if !add(done(s.k, "resources/list", res, err)) {
		return out
	}
	if uri := pickResource(res.Resources); uri == "" {
		add(skipped(s.k, "resources/read", "the server lists no resources"))
	} else {
		r, err := s.cs.ReadResource(s.ctx, &mcp.ReadResourceParams{URI: uri})
		if !add(done(s.k, "resources/read "+uri, r, err)) {
			return out
		}
	}

	prompts, err := s.cs.ListPrompts(s.ctx, nil)
	if !add(done(s.k, "prompts/list", prompts, err)) {
		return out
	}
	if name := pickPrompt(prompts.Prompts); name == "" {
		add(skipped(s.k, "prompts/get", "the server lists no prompt without required arguments"))
	} else {
		p, err := s.cs.GetPrompt(s.ctx, &mcp.GetPromptParams{Name: name})
		if !add(done(s.k, "prompts/get "+name, p, err)) {
			return out
		}
	}

	// The 2026-07-28 revision has no ping: go-sdk's server answers it
	// with "method not found".
	if v := s.cs.InitializeResult().ProtocolVersion; v >= "2026-07-28" {
		add(skipped(s.k, "ping", "protocol "+v+" has no ping"))
	} else if !add(done(s.k, "ping", struct{}{}, s.cs.Ping(s.ctx, nil))) {
		return out
	}
	if s.changed {
		add(s.callRole(names, s.echo("extra call")))
	}
	return out
}

// toolRoles are the tool calls of the script, in order.
func (s *session) toolRoles() []toolRole {
	a, b := 2, 3
	greeting := "hello"
	if s.changed {
		a, b, greeting = 20, 22, "changed hello"
	}
	roles := []toolRole{
		s.echo(greeting),
		{"sum", []string{"get-sum", "add"}, func(string) map[string]any { return map[string]any{"a": a, "b": b} }},
		{"simple text", []string{"test_simple_text"}, func(string) map[string]any { return nil }},
	}
	if s.secret != "" {
		roles = append(roles, toolRole{"secret", echoTools, func(tool string) map[string]any {
			args := echoArgs(tool, s.secret)
			args["api_key"] = s.secret
			return args
		}})
	}
	return roles
}

// echoTools are the tools that give back a string argument: the
// conformance server has no echo, but test_x_mcp_header answers with its
// region.
var echoTools = []string{"echo", "test_x_mcp_header"}

func (s *session) echo(text string) toolRole {
	msg := fmt.Sprintf("%s from client %d", text, s.k)
	return toolRole{"echo", echoTools, func(tool string) map[string]any { return echoArgs(tool, msg) }}
}

func echoArgs(tool, msg string) map[string]any {
	if tool == "test_x_mcp_header" {
		return map[string]any{"region": msg, "level": 1}
	}
	return map[string]any{"message": msg}
}

// callRole calls the first tool of r's candidates that names lists. A
// tool result with isError set is a failed step.
func (s *session) callRole(names []string, r toolRole) step {
	i := slices.IndexFunc(r.candidates, func(c string) bool { return slices.Contains(names, c) })
	if i < 0 {
		return skipped(s.k, "tools/call ("+r.role+")", "the server lists none of "+strings.Join(r.candidates, ", "))
	}
	tool := r.candidates[i]
	name := "tools/call " + tool
	if r.role == "secret" {
		name += " (secret)"
	}
	var args any
	if a := r.args(tool); a != nil {
		args = a
	}
	res, err := s.cs.CallTool(s.ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	st := done(s.k, name, res, err)
	if err == nil && res.IsError {
		st.OK = false
	}
	return st
}

// preferredResources and preferredPrompts are read first when listed.
var (
	preferredResources = []string{"test://static-text"}
	preferredPrompts   = []string{"test_simple_prompt", "simple-prompt"}
)

// pickResource is the URI to read: a preferred one, else the least URI of
// a text resource, else the least URI; "" when there is none.
func pickResource(rs []*mcp.Resource) string {
	var uris, text []string
	for _, r := range rs {
		uris = append(uris, r.URI)
		if strings.HasPrefix(r.MIMEType, "text/") {
			text = append(text, r.URI)
		}
	}
	for _, p := range preferredResources {
		if slices.Contains(uris, p) {
			return p
		}
	}
	if len(text) > 0 {
		return slices.Min(text)
	}
	if len(uris) > 0 {
		return slices.Min(uris)
	}
	return ""
}

// pickPrompt is the prompt to get: a preferred one, else the least name
// of a prompt with no required argument; "" when there is none.
func pickPrompt(ps []*mcp.Prompt) string {
	var names []string
	for _, p := range ps {
		if !slices.ContainsFunc(p.Arguments, func(a *mcp.PromptArgument) bool { return a.Required }) {
			names = append(names, p.Name)
		}
	}
	for _, p := range preferredPrompts {
		if slices.Contains(names, p) {
			return p
		}
	}
	if len(names) > 0 {
		return slices.Min(names)
	}
	return ""
}
