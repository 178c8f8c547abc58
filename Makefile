test:
	npm ci --prefix testdata --no-audit --no-fund
	go test -race ./...

.PHONY: test
