// Command mcpclient is the go-sdk test client of replayctl's record and
// serve tests: it connects N sessions of the official Go SDK client to an
// MCP server, runs a fixed client script in each, and prints a transcript,
// one JSON line per step, grouped by client in client order.
//
// Usage:
//
//	mcpclient [flags] -http URL
//	mcpclient [flags] -- SERVER_CMD ARGS...
//
// It exits 0 when every step succeeded, 1 when one did not (or the
// session could not be set up), 2 on bad usage. See package testclient for
// the script and the transcript's format.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// usageError is bad usage: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// headers is the repeatable -header K=V flag.
type headers [][2]string

func (h *headers) String() string { return fmt.Sprint(*h) }

func (h *headers) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", v)
	}
	*h = append(*h, [2]string{strings.TrimSpace(k), val})
	return nil
}

// config is what the flags say.
type config struct {
	url      string
	argv     []string
	protocol string
	clients  int
	script   string
	headers  headers
	secret   string
	noRoots  bool
	timeout  time.Duration
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parse(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "mcpclient: %v\n", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()

	lines := make([][]step, cfg.clients)
	var wg sync.WaitGroup
	for k := range cfg.clients {
		wg.Go(func() { lines[k] = runClient(ctx, cfg, k, stderr) })
	}
	wg.Wait()

	status := 0
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	for _, steps := range lines {
		for _, s := range steps {
			if !s.OK {
				status = 1
			}
			if err := enc.Encode(s); err != nil {
				fmt.Fprintf(stderr, "mcpclient: write the transcript: %v\n", err)
				return 1
			}
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "mcpclient: stopped after -timeout %s\n", cfg.timeout)
		status = 1
	}
	return status
}

func parse(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fs := flag.NewFlagSet("mcpclient", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: mcpclient [flags] -http URL\n       mcpclient [flags] -- SERVER_CMD ARGS...\n\nRuns the test client script against an MCP server and prints a JSON transcript.\n\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.url, "http", "", "Streamable HTTP endpoint of the server")
	fs.StringVar(&cfg.protocol, "protocol", "", `protocol revision to ask for: 2025-11-25 or 2026-07-28 ("" lets the SDK choose: its newest, falling back to what the server offers)`)
	fs.IntVar(&cfg.clients, "clients", 1, "number of concurrent client sessions")
	fs.StringVar(&cfg.script, "script", "default", "client script: default, or changed (other tool arguments and one extra call)")
	fs.Var(&cfg.headers, "header", "HTTP header NAME=VALUE sent with every request (repeatable; -http only)")
	fs.StringVar(&cfg.secret, "secret-arg", "", "a secret to pass in a tool call's arguments (adds a step)")
	fs.BoolVar(&cfg.noRoots, "no-roots", false, "offer no roots capability (a server that asks for roots some time after initialized, as server-everything does, then never asks)")
	fs.DurationVar(&cfg.timeout, "timeout", time.Minute, "bound on the whole run")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &usageError{err.Error()}
	}
	cfg.argv = fs.Args()
	switch {
	case cfg.url == "" && len(cfg.argv) == 0:
		return nil, &usageError{"give a server: -http URL, or -- SERVER_CMD ARGS (see -h)"}
	case cfg.url != "" && len(cfg.argv) > 0:
		return nil, &usageError{fmt.Sprintf("give -http URL or a server command, not both (got -http %s and %q)", cfg.url, cfg.argv)}
	case cfg.url == "" && len(cfg.headers) > 0:
		return nil, &usageError{"-header applies to -http only: a stdio server has no headers"}
	case cfg.clients < 1:
		return nil, &usageError{fmt.Sprintf("-clients %d: want 1 or more", cfg.clients)}
	case cfg.script != "default" && cfg.script != "changed":
		return nil, &usageError{fmt.Sprintf("-script %q: want default or changed", cfg.script)}
	case cfg.protocol != "" && cfg.protocol != "2025-11-25" && cfg.protocol != "2026-07-28":
		return nil, &usageError{fmt.Sprintf("-protocol %q: want 2025-11-25 or 2026-07-28", cfg.protocol)}
	case cfg.timeout <= 0:
		return nil, &usageError{fmt.Sprintf("-timeout %s: want a positive duration", cfg.timeout)}
	}
	return cfg, nil
}
