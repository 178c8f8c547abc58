test:
	npm ci --prefix testdata --no-audit --no-fund
	go test -race -timeout 40m ./...
	# The lean client's raw system calls are built only without -race;
	# the transport's allocations per request are counted only without it.
	go test -count=1 -run 'TestRawIO|TestLean|TestHTTPAllocs' ./transport/

.PHONY: test

# A release snapshot in dist/ (GoReleaser, pinned in tools/go.mod): not
# part of CI, it takes about 10 minutes on a cold cache on 2 cores.
snapshot:
	scripts/release-snapshot.sh

.PHONY: snapshot
