package kube

import "time"

// The contract between the manifests, the replayctl image (Dockerfile)
// and the commands the pods run. Every name the rendered objects use for
// a flag, an environment variable or a path is here, so that one change
// aligns them.
const (
	// Entrypoint is the replayctl binary in the image (the Dockerfile's
	// ENTRYPOINT); the containers name it as their command.
	Entrypoint = "/usr/local/bin/replayctl"
	// WorkDir is the image's WORKDIR.
	WorkDir = "/work"
	// UID and GID are the image's non-root user (distroless "nonroot").
	UID = 65532
	GID = 65532

	// FilesDir is where the ConfigMap is mounted (read-only) in a shard
	// pod: the tape, the config and the files the run flags name.
	FilesDir = "/replayctl/files"
	// TapeDir is where a tape too large for the ConfigMap is mounted from
	// its PersistentVolumeClaim (read-only).
	TapeDir = "/replayctl/tape"
	// ReportDir is where the coordinator writes the merged report (and,
	// without a coordinator, each shard its own).
	ReportDir = "/replayctl/reports"
	// TmpDir is a writable scratch folder (the root file system is
	// read-only); TMPDIR points there.
	TmpDir = "/tmp"

	// EnvShardIndex is the shard index in a shard pod, taken from the
	// pod's completion index annotation; the shard's --shard flag reads
	// it as $(REPLAYCTL_SHARD_INDEX).
	EnvShardIndex = "REPLAYCTL_SHARD_INDEX"
	// EnvJobCompletionIndex is the index the Job controller sets itself
	// in every pod of an Indexed Job (replayctl run reads it too).
	EnvJobCompletionIndex = "JOB_COMPLETION_INDEX"
	// EnvToken is the shared secret shards present to the coordinator.
	EnvToken = "REPLAYCTL_COORDINATOR_TOKEN"
	// TokenKey is the key of the token in its Secret.
	TokenKey = "token"

	// FlagShard and FlagCoordinator are the shard's flags: its part of
	// the run and the coordinator's URL.
	FlagShard       = "--shard"
	FlagCoordinator = "--coordinator"
	// FlagCoordinatorWait is how long a shard retries a coordinator it
	// cannot reach; the pods are given DefaultCoordinatorWait.
	FlagCoordinatorWait = "--coordinator-wait"
	// CoordinateCommand is the coordinator's subcommand; its flags:
	// the number of shards, the address it listens on, the merged
	// report file and the format of stdout (its log).
	CoordinateCommand   = "coordinate"
	FlagCoordShards     = "--shards"
	FlagCoordListen     = "--listen"
	FlagCoordReport     = "--report"
	FlagCoordOutput     = "--output"
	FlagCoordThresholds = "--threshold"

	// ReportFile is the coordinator's merged report in ReportDir.
	ReportFile = "report.json"
)

// DefaultCoordinatorWait is how long a shard pod waits for its
// coordinator before it exits 1 (which ends its index: the pod failure
// policy cannot tell it from a failed check). The coordinator's pod may
// start minutes after the shards' (its image pulled, a node scaled up);
// the coordinator waits as long for its shards (coordinate's
// --register-timeout, 5m).
const DefaultCoordinatorWait = 5 * time.Minute

// CoordinatorFlags are the flags of `replayctl coordinate` (shared with
// run --local-shards, which runs a coordinator) that kube render gives the
// coordinator rather than the shards.
var CoordinatorFlags = []string{"abort-on-fail", "interval", "heartbeat-timeout", "start-lead", "register-timeout"}

// Label keys of every object, and the component values that tell the
// coordinator from the shards.
const (
	LabelName      = "app.kubernetes.io/name"
	LabelInstance  = "app.kubernetes.io/instance"
	LabelComponent = "app.kubernetes.io/component"
	ComponentShard = "shard"
	ComponentCoord = "coordinator"
)
