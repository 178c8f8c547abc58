# replayctl in a container: a static binary (CGO_ENABLED=0) on distroless
# static, run as the image's non-root user (uid 65532). Build from a clone:
#
#   docker build -t replayctl .
#   docker run --rm -v "$PWD:/work" replayctl run examples/quickstart.jsonl
#
# (add --user "$(id -u)" when the command writes into /work: a report, a tape)
#
# The image has no shell, Node or Python: replay against the built-in mock
# or an HTTP --target, or serve a tape (--listen 0.0.0.0:8931 to be reached
# from outside the container); a stdio server command must be in the image.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/replayctl ./cmd/replayctl

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/replayctl /usr/local/bin/replayctl
USER nonroot:nonroot
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/replayctl"]
