// Package kube renders the Kubernetes manifests of a sharded replay: an
// Indexed Job whose pods are the shards (`replayctl run … --shard I/N`,
// I from the pod's completion index), the coordinator they connect to (a
// Job, a Service and a Secret holding the shared token), and the tape and
// config as a ConfigMap (or a PersistentVolumeClaim for a tape over the
// ConfigMap limit).
//
// The objects are built from the k8s.io/api types, checked by Validate
// (a strict decode of the YAML written, and the rules the API server
// applies to these fields) and written by WriteYAML as one multi-document
// YAML stream. contract.go holds every name the manifests share with the
// replayctl image and commands (flags, environment variables, paths) in
// one place.
package kube
