package kube

import "fmt"

// Defaults of the options, as the CLI flags document them.
const (
	DefaultName              = "replayctl"
	DefaultCPU               = "500m"
	DefaultMemory            = "256Mi"
	DefaultMemoryLimit       = "512Mi"
	DefaultCoordinatorCPU    = "250m"
	DefaultCoordinatorMemory = "256Mi"
	DefaultPort              = 7340 // replayctl coordinate's
	DefaultRetries           = 1
	DefaultAntiAffinity      = "preferred"

	// MaxShards bounds the shard count: a Job runs at most 100,000
	// indexes, and each shard is a pod and a connection to one
	// coordinator.
	MaxShards = 1000
	// MaxRetries bounds the retries of one shard (backoffLimitPerIndex).
	MaxRetries = 10
	// ConfigMapLimit is the most a ConfigMap may hold, its values
	// together (the API server refuses more).
	ConfigMapLimit = 1 << 20
)

// AntiAffinities are the values of AntiAffinity: prefer shards on
// different nodes, require it (a shard waits, Pending, for a node of its
// own), or place them anywhere.
var AntiAffinities = []string{"preferred", "required", "none"}

// Option changes what New renders.
type Option func(*settings)

type settings struct {
	namespace     string
	cpu, memory   string
	cpuLimit      string
	memoryLimit   string
	coordCPU      string
	coordMemory   string
	antiAffinity  string
	tapeClaim     string
	reportClaim   string
	tokenSecret   string
	token         string
	noCoordinator bool
	port          int
	retries       int
	thresholds    []string
	coordArgs     []string
	files         []File
}

func defaults() settings {
	return settings{
		cpu: DefaultCPU, memory: DefaultMemory, memoryLimit: DefaultMemoryLimit,
		coordCPU: DefaultCoordinatorCPU, coordMemory: DefaultCoordinatorMemory,
		antiAffinity: DefaultAntiAffinity, port: DefaultPort, retries: DefaultRetries,
	}
}

// Namespace puts every object in ns (default: none, kubectl's current
// namespace).
func Namespace(ns string) Option { return func(s *settings) { s.namespace = ns } }

// ShardResources sets each shard container's CPU and memory requests and
// limits, as Kubernetes quantities ("500m", "256Mi"); "" leaves one out.
// Default: requests 500m and 256Mi, a memory limit of 512Mi, no CPU limit.
func ShardResources(cpu, memory, cpuLimit, memoryLimit string) Option {
	return func(s *settings) { s.cpu, s.memory, s.cpuLimit, s.memoryLimit = cpu, memory, cpuLimit, memoryLimit }
}

// CoordinatorResources sets the coordinator's CPU and memory requests
// (its memory limit is twice the request). Default: 250m and 256Mi.
func CoordinatorResources(cpu, memory string) Option {
	return func(s *settings) { s.coordCPU, s.coordMemory = cpu, memory }
}

// AntiAffinity is how the shards spread over nodes: "preferred" (the
// default), "required" or "none".
func AntiAffinity(mode string) Option { return func(s *settings) { s.antiAffinity = mode } }

// TapeClaim mounts the tape from this PersistentVolumeClaim instead of the
// ConfigMap: for a tape over ConfigMapLimit. The claim must hold the tape
// at its root under the name the shards' arguments give it.
func TapeClaim(claim string) Option { return func(s *settings) { s.tapeClaim = claim } }

// ReportClaim writes the reports to this PersistentVolumeClaim (default:
// an emptyDir, the report read from the coordinator's log).
func ReportClaim(claim string) Option { return func(s *settings) { s.reportClaim = claim } }

// TokenSecret uses this existing Secret (key "token") for the coordinator
// token instead of rendering one with a random token.
func TokenSecret(name string) Option { return func(s *settings) { s.tokenSecret = name } }

// Token is the coordinator token the rendered Secret holds (default: 32
// random bytes, hex).
func Token(token string) Option { return func(s *settings) { s.token = token } }

// NoCoordinator renders the shards alone: each starts when its pod does
// and prints its JSON report to its log (and writes it to ReportClaim's
// volume, when given), for replayctl merge.
func NoCoordinator() Option { return func(s *settings) { s.noCoordinator = true } }

// Port is the coordinator's port (default 7340).
func Port(port int) Option { return func(s *settings) { s.port = port } }

// Retries is how often a failed shard pod is replaced (the Job's
// backoffLimitPerIndex; default 1). A shard that ends with exit status 1
// (the run ended, a check failed) or 2 (bad input) is not retried.
func Retries(n int) Option { return func(s *settings) { s.retries = n } }

// Thresholds are given to the coordinator, which judges them on the
// merged figures. (The shards' own --threshold flags are judged there
// too: kube render gives them to the shards only.)
func Thresholds(t ...string) Option {
	return func(s *settings) { s.thresholds = append(s.thresholds, t...) }
}

// CoordinatorArgs adds arguments to the coordinator's (after its
// --shards, --listen, --report and --output), e.g. "--abort-on-fail".
func CoordinatorArgs(args ...string) Option {
	return func(s *settings) { s.coordArgs = append(s.coordArgs, args...) }
}

// Files adds files to the ConfigMap beside the tape (a config, a mock
// tape, an earlier report), mounted in FilesDir under their keys.
func Files(f ...File) Option { return func(s *settings) { s.files = append(s.files, f...) } }

func (s settings) check() error {
	switch {
	case s.port < 1 || s.port > 65535:
		return fmt.Errorf("port %d: want 1 to 65535", s.port)
	case s.retries < 0 || s.retries > MaxRetries:
		return fmt.Errorf("retries %d: want 0 to %d", s.retries, MaxRetries)
	}
	for _, a := range AntiAffinities {
		if s.antiAffinity == a {
			return nil
		}
	}
	return fmt.Errorf("anti-affinity %q: want preferred, required or none", s.antiAffinity)
}
