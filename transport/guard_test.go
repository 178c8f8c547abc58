package transport

import (
	"errors"
	"testing"
)

// TestGuardAdmit: the DNS rebinding decision, by where the request
// arrived (loopback, or an address beyond it), its Host, its Origin and
// what the listener allows.
func TestGuardAdmit(t *testing.T) {
	lan := Guard{Hosts: []string{"mcp.lan", "Box.Test:9000"}, Origins: []string{"http://app.test:3000/"}}
	for _, c := range []struct {
		name                string
		g                   Guard
		local, host, origin string
		refused             string // "": admitted; else the header refused
	}{
		// A loopback listener: its own names, any port.
		{"loopback name", Guard{}, "127.0.0.1:8080", "127.0.0.1:8080", "", ""},
		{"localhost", Guard{}, "127.0.0.1:8080", "localhost:8080", "", ""},
		{"localhost no port", Guard{}, "127.0.0.1:8080", "localhost", "", ""},
		{"localhost other port (a port forward)", Guard{}, "127.0.0.1:8080", "LOCALHOST:9000", "", ""},
		{"localhost trailing dot", Guard{}, "127.0.0.1:8080", "localhost.:8080", "", ""},
		{"::1", Guard{}, "[::1]:8080", "[::1]:8080", "", ""},
		{"::1 no port", Guard{}, "127.0.0.1:8080", "[::1]", "", ""},
		{"127/8", Guard{}, "127.0.0.1:8080", "127.0.0.2:8080", "", ""},
		{"foreign host", Guard{}, "127.0.0.1:8080", "evil.example", "", "Host"},
		{"foreign host with port", Guard{}, "127.0.0.1:8080", "evil.example:8080", "", "Host"},
		{"localhost subdomain", Guard{}, "127.0.0.1:8080", "localhost.evil.example:8080", "", "Host"},
		{"no host", Guard{}, "127.0.0.1:8080", "", "", "Host"},
		{"unknown local judged as loopback", Guard{}, "", "evil.example", "", "Host"},
		{"unknown local, loopback host", Guard{}, "", "localhost:1", "", ""},
		{"LAN address on loopback listener", Guard{}, "127.0.0.1:8080", "192.0.2.10:8080", "", "Host"},
		// Origins on a loopback listener.
		{"loopback origin other port (an inspector)", Guard{}, "127.0.0.1:8080", "localhost:8080", "http://localhost:6274", ""},
		{"loopback origin https", Guard{}, "127.0.0.1:8080", "localhost:8080", "https://127.0.0.1", ""},
		{"foreign origin", Guard{}, "127.0.0.1:8080", "localhost:8080", "http://evil.example", "Origin"},
		{"null origin", Guard{}, "127.0.0.1:8080", "localhost:8080", "null", "Origin"},
		{"origin not http", Guard{}, "127.0.0.1:8080", "localhost:8080", "file://localhost", "Origin"},
		{"foreign host and origin: Host first", Guard{}, "127.0.0.1:8080", "evil.example", "http://evil.example", "Host"},
		{"allowed origin", lan, "127.0.0.1:8080", "localhost:8080", "http://APP.test:3000", ""},
		{"allowed origin other port", lan, "127.0.0.1:8080", "localhost:8080", "http://app.test:3001", "Origin"},
		{"any origin", Guard{Origins: []string{"*"}}, "127.0.0.1:8080", "localhost:8080", "http://evil.example", ""},
		// Allowed hosts.
		{"allowed name any port", lan, "127.0.0.1:8080", "MCP.lan:1234", "", ""},
		{"allowed name:port", lan, "127.0.0.1:8080", "box.test:9000", "", ""},
		{"allowed name:port other port", lan, "127.0.0.1:8080", "box.test:9001", "", "Host"},
		{"any host", Guard{Hosts: []string{"*"}}, "127.0.0.1:8080", "evil.example", "", ""},
		// Beyond loopback (bound to 0.0.0.0, reached at 192.0.2.10).
		{"the address reached", Guard{}, "192.0.2.10:8080", "192.0.2.10:8080", "", ""},
		{"the address reached, origin on it", Guard{}, "192.0.2.10:8080", "192.0.2.10:8080", "http://192.0.2.10:3000", ""},
		{"beyond: foreign origin", Guard{}, "192.0.2.10:8080", "192.0.2.10:8080", "http://evil.example", "Origin"},
		{"beyond: loopback origin is the client's page", Guard{}, "192.0.2.10:8080", "192.0.2.10:8080", "http://localhost:3000", "Origin"},
		{"beyond: foreign host", Guard{}, "192.0.2.10:8080", "evil.example:8080", "", "Host"},
		{"beyond: another address", Guard{}, "192.0.2.10:8080", "192.0.2.11:8080", "", "Host"},
		{"beyond: allowed name", lan, "192.0.2.10:8080", "mcp.lan:8080", "", ""},
		{"beyond: allowed origin", lan, "192.0.2.10:8080", "mcp.lan:8080", "http://app.test:3000", ""},
		{"beyond: IPv6 address reached", Guard{}, "[2001:db8::1]:8080", "[2001:db8::1]:8080", "http://[2001:db8::1]", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.g.Admit(c.local, c.host, c.origin)
			var fe *ForbiddenError
			switch {
			case c.refused == "" && err != nil:
				t.Errorf("Admit(%q, %q, %q) = %v, want admitted", c.local, c.host, c.origin, err)
			case c.refused != "" && !errors.As(err, &fe):
				t.Errorf("Admit(%q, %q, %q) = %v, want %s refused", c.local, c.host, c.origin, err, c.refused)
			case c.refused != "" && fe.Header != c.refused:
				t.Errorf("Admit(%q, %q, %q) refused %s, want %s", c.local, c.host, c.origin, fe.Header, c.refused)
			}
		})
	}
}

func TestIsLoopbackAddr(t *testing.T) {
	for _, c := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8080", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{"0.0.0.0:8080", false},
		{"[::]:8080", false},
		{":8080", false},
		{"192.0.2.10:8080", false},
	} {
		if got := IsLoopbackAddr(c.addr); got != c.want {
			t.Errorf("IsLoopbackAddr(%q) = %v, want %v", c.addr, got, c.want)
		}
	}
}
