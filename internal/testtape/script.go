package testtape

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ScriptAll is the client session of issue 12, for the Go SDK's
// conformance server (conformance/everything-server), in this order:
//
//   - tools/list; tools/call test_simple_text; test_x_mcp_header with
//     region "Zürich" (after tools/list, so that over HTTP on 2026-07-28
//     the client sends Mcp-Param-Region); test_tool_with_progress with
//     progressToken "p1" (three notifications/progress come back);
//   - resources/list; resources/read test://static-text;
//     resources/templates/list; resources/read test://template/42/data;
//   - prompts/list; prompts/get test_prompt_with_arguments;
//   - tools/call test_input_required_result_elicitation, …_sampling and
//     …_multi_round: on 2026-07-28 input_required results the client
//     answers with a new tools/call carrying inputResponses (one retry, one
//     retry, two retries); on 2025-11-25 the server asks the client
//     instead (elicitation/create, sampling/createMessage, then two
//     elicitation/create) within the one tools/call.
//
// Tasks are not in it: go-sdk v1.8.0 implements none, on either side.
//
// ScriptAll checks each answer's text and returns at the first step that
// fails, saying which.
func ScriptAll(ctx context.Context, cs *mcp.ClientSession) error {
	steps := []struct {
		name string
		run  func() error
	}{
		{"tools/list", func() error {
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				return err
			}
			if !slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "test_x_mcp_header" }) {
				return fmt.Errorf("no test_x_mcp_header among %d tools", len(res.Tools))
			}
			return nil
		}},
		{"test_simple_text", callText(ctx, cs, &mcp.CallToolParams{Name: "test_simple_text"}, "This is a simple text response for testing.")},
		{"test_x_mcp_header", callText(ctx, cs, &mcp.CallToolParams{
			Name:      "test_x_mcp_header",
			Arguments: map[string]any{"region": "Zürich", "level": 3},
		}, "region=Zürich")},
		{"test_tool_with_progress", callText(ctx, cs, &mcp.CallToolParams{
			Name: "test_tool_with_progress",
			Meta: mcp.Meta{"progressToken": "p1"},
		}, "p1")},
		{"resources/list", func() error {
			res, err := cs.ListResources(ctx, nil)
			if err != nil {
				return err
			}
			if !slices.ContainsFunc(res.Resources, func(r *mcp.Resource) bool { return r.URI == "test://static-text" }) {
				return fmt.Errorf("no test://static-text among %d resources", len(res.Resources))
			}
			return nil
		}},
		{"read test://static-text", readText(ctx, cs, "test://static-text", "This is the content of the static text resource.")},
		{"resources/templates/list", func() error {
			_, err := cs.ListResourceTemplates(ctx, nil)
			return err
		}},
		{"read test://template/42/data", readText(ctx, cs, "test://template/42/data", `"Data for ID: 42"`)},
		{"prompts/list", func() error {
			_, err := cs.ListPrompts(ctx, nil)
			return err
		}},
		{"prompts/get test_prompt_with_arguments", func() error {
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{
				Name:      "test_prompt_with_arguments",
				Arguments: map[string]string{"arg1": "one", "arg2": "two"},
			})
			if err != nil {
				return err
			}
			if len(res.Messages) == 0 {
				return fmt.Errorf("no messages")
			}
			return nil
		}},
		{"test_input_required_result_elicitation", callText(ctx, cs,
			&mcp.CallToolParams{Name: "test_input_required_result_elicitation"}, "Hello, Ada!")},
		{"test_input_required_result_sampling", callText(ctx, cs,
			&mcp.CallToolParams{Name: "test_input_required_result_sampling"}, "Sampling response: Paris")},
		{"test_input_required_result_multi_round", callText(ctx, cs,
			&mcp.CallToolParams{Name: "test_input_required_result_multi_round"}, "Multi-round complete: Ada likes blue")},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// callText is a step calling a tool whose first content must be a text
// holding want.
func callText(ctx context.Context, cs *mcp.ClientSession, p *mcp.CallToolParams, want string) func() error {
	return func() error {
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("tool error: %s", firstText(res.Content))
		}
		if got := firstText(res.Content); !strings.Contains(got, want) {
			return fmt.Errorf("got text %q, want %q", got, want)
		}
		return nil
	}
}

// readText is a step reading a resource whose first contents' text must
// hold want.
func readText(ctx context.Context, cs *mcp.ClientSession, uri, want string) func() error {
	return func() error {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return err
		}
		if len(res.Contents) == 0 {
			return fmt.Errorf("no contents")
		}
		if got := res.Contents[0].Text; !strings.Contains(got, want) {
			return fmt.Errorf("got text %q, want %q", got, want)
		}
		return nil
	}
}

func firstText(content []mcp.Content) string {
	if len(content) == 0 {
		return ""
	}
	if t, ok := content[0].(*mcp.TextContent); ok {
		return t.Text
	}
	return fmt.Sprintf("(%T)", content[0])
}
