package testserver

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRoot(t *testing.T) {
	root := Root(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("got root %s without go.mod: %v", root, err)
	}
}

func TestServersStart(t *testing.T) {
	tests := []struct {
		name string
		url  func(testing.TB) string
		want int // status of a plain GET without a session
	}{
		{"everything streamable HTTP", EverythingHTTP, http.StatusBadRequest},
		{"go-sdk streamable HTTP", GoSDKHTTP, http.StatusBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := tc.url(t)
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
			req.Header.Set("Accept", "text/event-stream")
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("GET %s: %v", url, err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("GET %s: got status %d, want %d", url, resp.StatusCode, tc.want)
			}
		})
	}
	for _, argv := range [][]string{Everything(t), GoSDK(t)} {
		if _, err := os.Stat(argv[0]); err != nil {
			t.Errorf("got argv %v, its program is missing: %v", argv, err)
		}
	}
}
