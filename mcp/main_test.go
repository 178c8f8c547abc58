package mcp_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The package starts no goroutines; the go-sdk server of gosdk_test.go
// must not leave any either.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
