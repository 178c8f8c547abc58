// Package stdpipe readies the process's standard streams for a proxy or
// server that must stop at once: copies of their descriptors whose Close
// ends a read or write in progress, made without changing what the
// process shares with others (the open file description's flags), and
// SIGPIPE turned into an error.
package stdpipe
