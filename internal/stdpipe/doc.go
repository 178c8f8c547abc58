// Package stdpipe readies the process's standard streams for a proxy or
// server that must stop at once: descriptors the poller can interrupt, and
// SIGPIPE turned into an error.
package stdpipe
