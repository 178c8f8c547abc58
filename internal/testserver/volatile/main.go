// Command volatile is the volatilemcp test server over stdio (the
// default) or Streamable HTTP (-http ADDR). Flags: -delay D answers every
// tools/call after D; -lang L sets greet's language (default en);
// -require-header K:V answers HTTP requests without that header 401.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replayctl/replayctl/internal/testserver/volatilemcp"
)

func main() {
	delay := flag.Duration("delay", 0, "answer every tools/call after this")
	lang := flag.String("lang", "en", "greet's language")
	addr := flag.String("http", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	require := flag.String("require-header", "", "K:V: answer HTTP requests without this header 401")
	flag.Parse()
	opts := []volatilemcp.Option{volatilemcp.WithDelay(*delay), volatilemcp.WithLang(*lang)}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr != "" {
		h := volatilemcp.Handler(opts...)
		if k, v, ok := strings.Cut(*require, ":"); ok {
			h = requireHeader(h, k, v)
		}
		srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
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

// requireHeader answers 401 to a request without header k: v.
func requireHeader(h http.Handler, k, v string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(k) != v {
			http.Error(w, "volatile: missing header "+k, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
