// Package testserver starts reference MCP servers for tests of every
// package: the official TypeScript server-everything (pinned in
// testdata/package.json, installed by `npm ci --prefix testdata`) and the
// official Go SDK's conformance server (pinned by a tool directive in
// go.mod), over stdio or over HTTP on a free loopback port; and servers of
// its own, built from this module once per test process: Crashy (dies on
// input that is not JSON) and Slow / SlowHTTP / SlowHandler (delayed
// tools/call answers, an arrival log, hang modes: see ./slowmcp); and
// Sum, a go-sdk server whose get-sum tool changes from version to
// version, in process or as the test binary (SumMain).
//
// Helpers fail the test with a message saying what to install when a
// server is missing; they never skip silently. HTTP servers are stopped by
// t.Cleanup.
package testserver
