package main

import (
	"time"

	"github.com/spf13/pflag"
)

// listenLimits are the limits of a listener against its clients, flags
// of serve and record: how long a request body may take, how many bytes
// of bodies are held at once, how many connections.
type listenLimits struct {
	bodyTimeout time.Duration
	bodyBudget  byteSize
	maxConns    int
}

// add declares the flags.
func (l *listenLimits) add(fl *pflag.FlagSet) {
	addKnob(fl, "", "body-timeout", &l.bodyTimeout)
	addKnob(fl, "", "body-budget", &l.bodyBudget)
	addKnob(fl, "", "max-conns", &l.maxConns)
}

// serveLimits are serve's limits: the listener's, the batch size, the
// misses kept, the upstream processes of --mode new.
type serveLimits struct {
	listenLimits
	maxBatch     int
	maxMisses    int
	maxUpstreams int
	upstreamIdle time.Duration
	upstreamWait time.Duration
}

// addLimits declares serve's limit flags.
func (f *serveFlags) addLimits(fl *pflag.FlagSet) {
	f.listenLimits.add(fl)
	addKnob(fl, "serve", "max-batch", &f.maxBatch)
	addKnob(fl, "serve", "max-misses", &f.maxMisses)
	addKnob(fl, "serve", "max-upstreams", &f.maxUpstreams)
	addKnob(fl, "serve", "upstream-idle-timeout", &f.upstreamIdle)
	addKnob(fl, "serve", "upstream-timeout", &f.upstreamWait)
}

// check refuses a limit that is no limit: a count or a duration under 1.
func (l *listenLimits) check() error {
	switch {
	case l.bodyTimeout <= 0:
		return usageError("--body-timeout %v: want a duration above 0, e.g. 10s", l.bodyTimeout)
	case l.maxConns < 1:
		return usageError("--max-conns %d: want at least 1", l.maxConns)
	}
	return nil
}

// check refuses a limit that is no limit (see listenLimits.check).
func (l *serveLimits) check() error {
	if err := l.listenLimits.check(); err != nil {
		return err
	}
	for _, c := range []struct {
		flag string
		n    int
	}{{"--max-batch", l.maxBatch}, {"--max-misses", l.maxMisses}, {"--max-upstreams", l.maxUpstreams}} {
		if c.n < 1 {
			return usageError("%s %d: want at least 1", c.flag, c.n)
		}
	}
	if l.upstreamIdle <= 0 {
		return usageError("--upstream-idle-timeout %v: want a duration above 0, e.g. 60s", l.upstreamIdle)
	}
	if l.upstreamWait <= 0 {
		return usageError("--upstream-timeout %v: want a duration above 0, e.g. 60s", l.upstreamWait)
	}
	return nil
}
