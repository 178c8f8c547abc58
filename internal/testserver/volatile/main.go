// Command volatile is the volatilemcp test server over stdio (the
// default) or Streamable HTTP (-http ADDR). Flags: -delay D answers every
// tools/call after D; -lang L sets greet's language (default en).
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/internal/testserver/volatilemcp"
)

func main() {
	delay := flag.Duration("delay", 0, "answer every tools/call after this")
	lang := flag.String("lang", "en", "greet's language")
	addr := flag.String("http", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	flag.Parse()
	opts := []volatilemcp.Option{volatilemcp.WithDelay(*delay), volatilemcp.WithLang(*lang)}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr != "" {
		srv := &http.Server{Addr: *addr, Handler: volatilemcp.Handler(opts...), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			<-ctx.Done()
			_ = srv.Close()
		}()
		if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			fmt.Fprintln(os.Stderr, "volatile:", err)
			os.Exit(1)
		}
		return
	}
	if err := volatilemcp.Server(opts...).Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "volatile:", err)
		os.Exit(1)
	}
}
