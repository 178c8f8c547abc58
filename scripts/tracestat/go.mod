module github.com/replayctl/replayctl/scripts/tracestat

go 1.26

require golang.org/x/exp v0.0.0-20260410095643-746e56fc9e2f
