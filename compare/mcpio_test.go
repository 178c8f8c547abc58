package compare_test

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpIO is the go-sdk's IOTransport over a pipe's two ends.
type mcpIO struct {
	in  io.ReadCloser
	out io.WriteCloser
}

func (m *mcpIO) Connect(ctx context.Context) (mcp.Connection, error) {
	return (&mcp.IOTransport{Reader: m.in, Writer: m.out}).Connect(ctx)
}
