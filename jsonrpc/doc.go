// Package jsonrpc is a raw-preserving view of a JSON-RPC 2.0 message.
//
// Parse classifies a message (request, notification, response, error,
// batch) and finds its id, method, params, result and error members without
// decoding anything else: a Message keeps the exact bytes it was given and
// offsets into them. WithID rewrites the id value and leaves every other
// byte as recorded, which is how the replay engine maps recorded ids onto a
// live session's id space without re-encoding messages.
//
// Parse is the hot path (it runs several times per replayed message) and
// trusts that its input is well-formed JSON, as it is when it comes from a
// tape the reader has checked with json.Valid. Bytes from the network go
// through ParseStrict, which checks the grammar first.
//
// IDKey turns an id into a map key for matching responses to requests.
package jsonrpc
