// Package testleak finds a secret in an output, for tests of redaction:
// in the output as it is, or in any of the forms a reader could recover it
// from — HTML and XML character references, JSON and Go string literals
// and escapes, URL escapes, base64 — up to three layers deep (a JSON
// value quoted in a log line; a JSON value in an HTML page).
//
// It is an oracle written apart from tape.Redactor: it decodes the
// whole output each way (the standard library's decoders where there is
// one) and looks, where the Redactor decodes views of it. A test runs the
// Redactor over an output, then asks Find whether the secret survived.
package testleak
