#!/usr/bin/env bash
# A snapshot release build, as a tagged release would be built, into dist/:
# the archives of .goreleaser.yaml, checksums.txt and the SBOMs. Builds the
# pinned GoReleaser and cyclonedx-gomod (tools/go.mod) into build/tools
# first; the first run downloads and compiles them (minutes), later runs
# reuse Go's caches.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/tools
(cd tools && go build -o ../build/tools/ github.com/goreleaser/goreleaser/v2 github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod)
export PATH="$PWD/build/tools:$PATH"
goreleaser check
goreleaser release --snapshot --clean "$@"
