// Package record makes tapes from live MCP servers.
//
// Script plays a list of client messages to a server, as a simple client
// would (each request waits for its answer), and writes every message seen
// in either direction, with its time and transport metadata, to a tape.
// Tests use it to record the tapes they replay against the same servers;
// recording proxies for real clients come later.
package record
