#!/usr/bin/env bash
# Builds kube-apiserver and kube-controller-manager from the k8s.io/kubernetes
# module at a pinned version, for TestKubeRenderAppliesToAPIServer (README,
# "On Kubernetes"). The module's go.mod replaces its k8s.io/* staging modules
# with folders its zip does not carry, so a scratch module replaces each with
# its published v0.X.Y instead. On this project's 2-core machines (shared)
# kube-apiserver took 30 min from a cold build cache.
#
#   scripts/kube-binaries.sh OUTDIR [VERSION]     (default v1.37.2)
#   KUBE_APISERVER=OUTDIR/kube-apiserver ETCD=$(command -v etcd) \
#   KUBE_CONTROLLER_MANAGER=OUTDIR/kube-controller-manager \
#     go test -run TestKubeRenderAppliesToAPIServer ./cmd/replayctl/
set -euo pipefail
out=$(realpath "${1:?usage: $0 OUTDIR [VERSION]}")
version=${2:-v1.37.2}
staging=v0.${version#v1.}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
go mod download -json "k8s.io/kubernetes@$version" >/dev/null
modfile=$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/$version.mod
{
  echo "module kbuild"
  echo
  echo "go $(awk '/^go /{print $2; exit}' "$modfile")"
  echo
  echo "replace ("
  # Every staging module published at the matching version.
  for m in $(awk '/=> .\/staging/{print $1}' "$modfile"); do
    if go list -m -versions "$m" 2>/dev/null | tr ' ' '\n' | grep -qx "$staging"; then
      echo "	$m => $m $staging"
    fi
  done
  echo ")"
} > go.mod
mkdir -p "$out"
for cmd in kube-apiserver kube-controller-manager; do
  go get -tool "k8s.io/kubernetes/cmd/$cmd@$version"
  go build -o "$out/$cmd" "k8s.io/kubernetes/cmd/$cmd"
  echo "built $out/$cmd"
done
command -v etcd >/dev/null || echo "etcd: apt-get install -y etcd-server"
