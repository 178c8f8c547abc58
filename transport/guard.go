package transport

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/replayctl/replayctl/mcp"
)

// Guard is the DNS rebinding protection of an HTTP listener (serve's
// StreamableHandler, LegacyHandler and Mux, record's proxy): a web page
// on a name its attacker points at 127.0.0.1 reaches a local server with
// its own name in Host and its own origin in Origin, and is refused.
//
// A request may be served when both of these hold:
//
//   - Host names the server: localhost, a loopback address (127.0.0.1,
//     [::1]), the address the request reached (a listener bound beyond
//     loopback, reached at 192.0.2.10:8080, answers Host 192.0.2.10:8080),
//     or a name in Hosts ("name" with any port, "name:port" with that
//     port only; "*" any Host). Any port: a loopback name cannot be an
//     attacker's, and an ssh or container port forward changes the port.
//   - Origin, when the request has one (a browser's), is a loopback
//     origin while the request reached a loopback address, an origin on
//     the address reached, or one of Origins ("http://app.test:8080";
//     "*" any Origin). A listener reached beyond loopback refuses
//     loopback origins: they are pages on the client's machine, not the
//     server's.
//
// The zero Guard allows nothing beyond that. A Guard is a value; its
// methods do not change it.
type Guard struct {
	Hosts   []string // Host names allowed besides the loopback names and the address reached
	Origins []string // browser origins allowed besides those Admit allows itself
}

// ForbiddenError is a request a Guard refused: the header at fault, its
// value, and the address the request reached.
type ForbiddenError struct {
	Header string // "Host" or "Origin"
	Value  string
	Local  string // host:port the request reached; "" unknown
}

func (e *ForbiddenError) Error() string {
	at := "this server"
	if e.Local != "" {
		at = "the listener on " + e.Local
	}
	if e.Header == "Host" {
		value := e.Value
		if value == "" {
			value = "(none)"
		}
		return fmt.Sprintf("Forbidden: Host %s is not a name of %s (DNS rebinding protection): it answers localhost, 127.0.0.1, [::1] and the address it was reached at; allow another name with --allow-host NAME", value, at)
	}
	return fmt.Sprintf("Forbidden: Origin %s may not reach %s (DNS rebinding protection): only pages on loopback (or on the address reached) may; allow another origin with --allow-origin ORIGIN", e.Value, at)
}

// Admit decides whether a request that reached the address local
// (host:port; "" when unknown, judged as loopback) with the Host header
// host and the Origin header origin ("": none) may be served: nil, or a
// *ForbiddenError saying which header is refused. It is a pure function.
func (g Guard) Admit(local, host, origin string) error {
	localIP := hostIP(local)
	viaLoopback := localIP == nil || localIP.IsLoopback()
	if !g.hostAllowed(host, localIP) {
		return &ForbiddenError{Header: "Host", Value: host, Local: local}
	}
	if origin != "" && !g.originAllowed(origin, localIP, viaLoopback) {
		return &ForbiddenError{Header: "Origin", Value: origin, Local: local}
	}
	return nil
}

func (g Guard) hostAllowed(host string, localIP net.IP) bool {
	name := hostName(host)
	if name == "" {
		return false
	}
	for _, a := range g.Hosts {
		a = strings.ToLower(strings.TrimSpace(a))
		if a == "*" || a == name || a == strings.ToLower(host) {
			return true
		}
	}
	if isLoopbackHost(name) {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && localIP != nil && ip.Equal(localIP)
}

func (g Guard) originAllowed(origin string, localIP net.IP, viaLoopback bool) bool {
	for _, a := range g.Origins {
		a = strings.TrimSuffix(strings.TrimSpace(a), "/")
		if a == "*" || strings.EqualFold(a, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // "null" (a sandboxed page, a file), or not an origin
	}
	name := hostName(u.Host)
	if viaLoopback && isLoopbackHost(name) {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && localIP != nil && ip.Equal(localIP)
}

// Refuse answers r with 403 and a JSON-RPC error saying why when Admit
// refuses it, and reports whether it did. The address r reached is in its
// context, as http.Server puts it there; a request without one came
// through no network listener (an in-process client calling the handler,
// http://in-process/mcp) and is not judged: no web page can reach it.
func (g Guard) Refuse(w http.ResponseWriter, r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || addr == nil {
		return false
	}
	err := g.Admit(addr.String(), r.Host, r.Header.Get("Origin"))
	if err == nil {
		return false
	}
	writeError(w, http.StatusForbidden, nil, mcp.CodeInvalidRequest, err.Error())
	return true
}

// hostName is the lower-case host name of a Host header or a host:port
// ("[::1]:80" → "::1"), without a trailing dot; "" when there is none.
func hostName(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// hostIP is the IP address of host:port, or nil.
func hostIP(hostport string) net.IP {
	return net.ParseIP(hostName(hostport))
}

// IsLoopbackAddr says whether hostport, an address a listener is bound
// to, is reachable from this machine only: a loopback address or
// localhost. An unspecified address (":8080", "0.0.0.0:8080", "[::]:8080")
// is every interface, so it is not.
func IsLoopbackAddr(hostport string) bool {
	return isLoopbackHost(hostName(hostport))
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
