package testserver

import (
	"net"
	"os/exec"
	"strconv"
	"testing"
)

// GoSDKHTTPStateless starts the Go SDK's conformance server over
// Streamable HTTP in its stateless mode (no session ids: every POST stands
// alone, so that a plain HTTP load tool such as wrk can call a tool
// without a handshake) and returns its endpoint.
func GoSDKHTTPStateless(t testing.TB) string {
	t.Helper()
	bin := GoSDK(t)[0]
	addr := start(t, func(port int) *exec.Cmd {
		return exec.Command(bin, "-http", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), "-stateless=true")
	})
	return "http://" + addr + "/"
}
