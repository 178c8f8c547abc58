package replay

import (
	"fmt"
	"os"
	"strings"

	"github.com/replayctl/replayctl/tape"
	"github.com/replayctl/replayctl/transport"
)

// Command starts a server process for each session and speaks MCP over
// its stdin and stdout (the stdio transport), e.g.
// Command("node", "server.js"). The process's stderr is kept for errors.
func Command(name string, args ...string) Target {
	return Target{impl: commandTarget{argv: append([]string{name}, args...)}}
}

// commandTarget is Command: a transport.Stdio process per session.
type commandTarget struct {
	argv []string
	env  []string
	dir  string
}

func (c commandTarget) String() string { return tape.MaskURLs(strings.Join(c.argv, " ")) }

func (c commandTarget) Dialer(env DialEnv) (transport.Dialer, error) {
	if len(c.argv) == 0 || c.argv[0] == "" {
		return nil, &OptionError{Option: "Command", Value: "", Err: fmt.Errorf("no command to run")}
	}
	if c.dir != "" {
		if fi, err := os.Stat(c.dir); err != nil || !fi.IsDir() {
			return nil, &OptionError{Option: "WithDir", Value: c.dir, Err: fmt.Errorf("no such folder")}
		}
	}
	for _, kv := range c.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, &OptionError{Option: "WithEnv", Value: kv, Err: fmt.Errorf("want K=V")}
		}
	}
	return transport.Stdio{Command: c.argv, Env: c.env, Dir: c.dir, Logger: env.Logger.With().Str("server", c.argv[0]).Logger(), MaxMessage: env.MaxMessage}, nil
}

func (c commandTarget) tapeHeader(h tape.Header) tape.Header {
	h.Transport, h.Server = "stdio", &tape.Server{Command: c.argv}
	return h
}
