package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/replayctl/replayctl/internal/atomicfile"
	"github.com/replayctl/replayctl/kube"
	"github.com/replayctl/replayctl/replay"
)

// kubeFlags are the flags of `replayctl kube render` of its own; the run
// flags it takes for the shards are run's (newRunCommand).
type kubeFlags struct {
	shards        int
	image         string
	name          string
	namespace     string
	out           string
	cpu, memory   string
	cpuLimit      string
	memoryLimit   string
	coordCPU      string
	coordMemory   string
	antiAffinity  string
	tapeClaim     string
	reportClaim   string
	tokenSecret   string
	noCoordinator bool
	port          int
	retries       int
}

// renderRefused are run flags a shard pod cannot take, and why.
var renderRefused = map[string]string{
	"shard":         "each pod is given its shard (--shard $(" + kube.EnvShardIndex + ")/N): leave out --shard; --shards N sets N",
	"local-shards":  "the pods are the shards: leave out --local-shards",
	"shard-reports": "the pods are the shards: leave out --shard-reports (--report-claim keeps the reports on a volume)",
	"report":        "a shard's report file would stay in its pod: the coordinator writes the merged report (kubectl logs; --report-claim keeps it on a volume)",
	"out":           "a shard's event stream would stay in its pod: leave out --out",
	"out-buffer":    "a shard's event stream would stay in its pod: leave out --out-buffer",
	"coordinator":   "each pod is given the coordinator's Service: leave out --coordinator (--no-coordinator renders none)",
}

// renderFiles are the run flags that name a file the shards read: it is
// carried in the ConfigMap, under its base name after the prefix.
var renderFiles = map[string]string{"config": "config-", "mock-tape": "mock-", "chaos-from": "chaos-from-"}

func (a *app) kubeCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kube",
		Short: "Run a sharded replay on Kubernetes",
	}
	cmd.AddCommand(a.kubeRenderCommand())
	return cmd
}

func (a *app) kubeRenderCommand() *cobra.Command {
	var k kubeFlags
	runCmd, rf := a.newRunCommand()
	cmd := &cobra.Command{
		Use:   "render TAPE [run flags] --shards N --image IMAGE [-- SERVER_COMMAND ARGS...]",
		Short: "Write the Kubernetes manifests of a replay in N shard pods",
		Long: `Write the Kubernetes manifests of a replay in N shard pods: an Indexed Job
whose pod I runs "replayctl run ... --shard I/N", the coordinator they connect
to (a Job and a Service, its token in a Secret), and the tape and config in
a ConfigMap. The run flags are run's: they are checked here as run checks
them, and given to every shard. Apply with kubectl apply -f.`,
		Example: `  replayctl kube render tape.jsonl --speed 10x --sessions 2000 --target http://mcp.default.svc:3000/mcp \
    --threshold "p99<200ms" --shards 8 --image ghcr.io/you/replayctl:v1 -o replay.yaml
  kubectl apply -f replay.yaml`,
		Args: tapeArgs("kube render"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.kubeRender(cmd, args, k, rf)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&k.shards, "shards", 0, fmt.Sprintf("shard pods: the Job's completions and parallelism (1 to %d; required)", kube.MaxShards))
	fl.StringVar(&k.image, "image", "", "the replayctl image the pods run (built from the Dockerfile; required)")
	fl.StringVar(&k.name, "name", kube.DefaultName, "the shards' Job; the coordinator's objects are NAME-coordinator, the ConfigMap NAME-tape, the Secret NAME-token")
	fl.StringVar(&k.namespace, "namespace", "", "the namespace of every object (default: none, kubectl's current one)")
	fl.StringVarP(&k.out, "output", "o", "", "write the manifests to FILE (whole or not at all, mode 0600: it holds the token) instead of stdout")
	fl.StringVar(&k.cpu, "cpu", kube.DefaultCPU, "CPU request of each shard (a Kubernetes quantity; empty: none)")
	fl.StringVar(&k.memory, "memory", kube.DefaultMemory, "memory request of each shard (empty: none)")
	fl.StringVar(&k.cpuLimit, "cpu-limit", "", "CPU limit of each shard (default: none)")
	fl.StringVar(&k.memoryLimit, "memory-limit", kube.DefaultMemoryLimit, "memory limit of each shard (empty: none)")
	fl.StringVar(&k.coordCPU, "coordinator-cpu", kube.DefaultCoordinatorCPU, "CPU request of the coordinator")
	fl.StringVar(&k.coordMemory, "coordinator-memory", kube.DefaultCoordinatorMemory, "memory request of the coordinator (its limit: twice this)")
	fl.StringVar(&k.antiAffinity, "anti-affinity", kube.DefaultAntiAffinity, "spread the shards over nodes: preferred, required (a shard waits for a node of its own) or none")
	fl.StringVar(&k.tapeClaim, "tape-claim", "", "mount the tape from this PersistentVolumeClaim, not the ConfigMap (for a tape over 1 MiB; copy it to the claim's root first)")
	fl.StringVar(&k.reportClaim, "report-claim", "", "write the report to this PersistentVolumeClaim (default: an emptyDir; read the report with kubectl logs)")
	fl.StringVar(&k.tokenSecret, "token-secret", "", "take the coordinator token from this existing Secret (key "+kube.TokenKey+") instead of rendering one with a random token")
	fl.BoolVar(&k.noCoordinator, "no-coordinator", false, "render the shards alone: each starts when its pod does and prints its JSON report to its log, for replayctl merge")
	fl.IntVar(&k.port, "port", kube.DefaultPort, "the coordinator's port")
	fl.IntVar(&k.retries, "retries", kube.DefaultRetries, fmt.Sprintf("replacements of a failed shard pod (the Job's backoffLimitPerIndex, 0 to %d); exit status 1 or 2 is never retried", kube.MaxRetries))
	// Then run's flags, but those render gives a meaning of its own
	// (--shards, -o: a shard's stdout is JSON) or sets itself.
	runCmd.Flags().VisitAll(func(f *pflag.Flag) {
		if fl.Lookup(f.Name) != nil {
			return
		}
		if f.Shorthand != "" && fl.ShorthandLookup(f.Shorthand) != nil {
			own := *f // the same value, without the shorthand render uses
			own.Shorthand = ""
			f = &own
		}
		fl.AddFlag(f)
	})
	registerValues(cmd, "anti-affinity", kube.AntiAffinities...)
	return cmd
}

// kubeRender checks the run flags as run would for a shard, then writes
// the manifests.
func (a *app) kubeRender(cmd *cobra.Command, args []string, k kubeFlags, rf *runFlags) error {
	switch {
	case !cmd.Flags().Changed("shards"):
		return usageError("--shards N: say how many shard pods to run (1 to %d)", kube.MaxShards)
	case k.shards < 1 || k.shards > kube.MaxShards:
		return usageError("--shards %d: want the number of shard pods, 1 to %d", k.shards, kube.MaxShards)
	case k.image == "":
		return usageError("--image: give the replayctl image the pods run, e.g. --image ghcr.io/you/replayctl:v1 (built from the Dockerfile)")
	case args[0] == "-":
		return usageError("kube render: the tape cannot be read from stdin: it goes into the manifests; give a file")
	case k.out == "text" || k.out == "json":
		return usageError("-o %s: -o names the file the manifests are written to; a shard's report is JSON already", k.out)
	}
	for _, name := range slices.Sorted(maps.Keys(renderRefused)) {
		if cmd.Flags().Changed(name) {
			return usageError("--%s: %s", name, renderRefused[name])
		}
	}
	for _, name := range historyFlagNames {
		if cmd.Flags().Changed(name) {
			return usageError("--%s: a shard keeps no run (--history none): keep the merged report in a run store from where you collect it", name)
		}
	}
	tapePath := args[0]
	tapeKey := fileKey("", tapePath)
	var tapeData []byte
	if k.tapeClaim == "" {
		fi, err := os.Stat(tapePath)
		if err != nil {
			return usageError("tape %s: %v", tapePath, err)
		}
		if fi.Size() > kube.ConfigMapLimit {
			return usageError("tape %s is %d bytes; a ConfigMap holds at most %d (1 MiB): copy the tape to a PersistentVolumeClaim (at its root, as %s) and give --tape-claim CLAIM", tapePath, fi.Size(), kube.ConfigMapLimit, tapeKey)
		}
		if tapeData, err = os.ReadFile(tapePath); err != nil {
			return usageError("tape %s: %v", tapePath, err)
		}
	}
	// The files the run flags name travel in the ConfigMap.
	files, local, err := renderFileFlags(cmd, rf)
	if err != nil {
		return err
	}
	var command []string
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		command = args[dash:]
	}
	if len(command) == 0 && rf.target == "" {
		fmt.Fprintf(a.errOut, "warning: kube render: no --target and no server command: the pods replay against the built-in mock, a load on nothing but themselves; give --target URL (a Service in the cluster) or -- SERVER ARGS…\n")
	}
	inPod := func(name, v string) string {
		if _, ok := renderFiles[name]; ok {
			return path.Join(kube.FilesDir, fileKey(renderFiles[name], v))
		}
		return v
	}
	podFlags := renderRunFlags(cmd, inPod)
	// The coordinator's flags go to the coordinator (--threshold goes to
	// the shards: the coordinator judges theirs on the merged data).
	var coordArgs []string
	for _, name := range kube.CoordinatorFlags {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
			coordArgs = append(coordArgs, "--"+name+"="+fl.Value.String())
		}
	}
	// Check them as run does, with the files where they are here.
	checkArgs := append([]string{"run"}, renderRunFlags(cmd, func(name, v string) string {
		if p, ok := local[name]; ok {
			return p
		}
		return v
	})...)
	checkArgs = append(checkArgs, "--shard=0/"+strconv.Itoa(k.shards), tapePath)
	if len(command) > 0 {
		checkArgs = append(append(checkArgs, "--"), command...)
	}
	seed, err := a.checkShardRun(cmd, checkArgs)
	if err != nil {
		return err
	}
	if seed != nil {
		podFlags = append(podFlags, "--seed="+strconv.FormatInt(*seed, 10))
		fmt.Fprintf(a.errOut, "kube render: seed %d, given to every shard (repeat with --seed %d)\n", *seed, *seed)
	}
	opts := []kube.Option{
		kube.Namespace(k.namespace),
		kube.ShardResources(k.cpu, k.memory, k.cpuLimit, k.memoryLimit),
		kube.CoordinatorResources(k.coordCPU, k.coordMemory),
		kube.AntiAffinity(k.antiAffinity),
		kube.TapeClaim(k.tapeClaim),
		kube.ReportClaim(k.reportClaim),
		kube.TokenSecret(k.tokenSecret),
		kube.Port(k.port),
		kube.Retries(k.retries),
		kube.CoordinatorArgs(coordArgs...),
		kube.Files(files...),
	}
	if k.noCoordinator {
		opts = append(opts, kube.NoCoordinator())
	}
	m, err := kube.New(k.name, k.image, k.shards, kube.File{Key: tapeKey, Data: tapeData}, podFlags, command, opts...)
	if err != nil {
		return usageError("kube render: %v", err)
	}
	var buf bytes.Buffer
	if err := kube.WriteYAML(&buf, m.Objects()); err != nil {
		return err
	}
	if err := a.writeManifests(cmd.OutOrStdout(), k.out, buf.Bytes()); err != nil {
		return err
	}
	if k.tapeClaim != "" {
		fmt.Fprintf(a.errOut, "kube render: copy %s to the root of the claim %s as %s before applying\n", tapePath, k.tapeClaim, tapeKey)
	}
	if u, err := url.Parse(rf.target); err == nil && rf.target != "" && isLoopbackHost(u.Hostname()) {
		fmt.Fprintf(a.errOut, "kube render: warning: --target %s is a loopback address: in a pod it is the pod itself; give the server's Service (e.g. http://mcp.NAMESPACE.svc:3000/mcp)\n", u.Redacted())
	}
	return nil
}

// writeManifests writes data to stdout, or to the file whole (mode 0600:
// the Secret holds the token) or not at all.
func (a *app) writeManifests(stdout io.Writer, file string, data []byte) error {
	if file == "" {
		_, err := stdout.Write(data)
		return err
	}
	f, err := atomicfile.Create(file)
	if err != nil {
		return usageError("-o %s: %v", file, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", file, err)
	}
	if err := f.CommitMode(0o600); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return nil
}

// renderFileFlags reads the files the run flags name (and the config run
// would find in this folder) into ConfigMap files, and says where each is
// here, by flag.
func renderFileFlags(cmd *cobra.Command, rf *runFlags) ([]kube.File, map[string]string, error) {
	local := map[string]string{}
	given := map[string]string{"mock-tape": rf.mockTape, "chaos-from": rf.chaosFrom}
	cfg, err := configPath(cmd, rf.configPath)
	if err != nil {
		return nil, nil, err
	}
	given["config"] = cfg
	var files []kube.File
	for _, name := range slices.Sorted(maps.Keys(given)) {
		p := given[name]
		if p == "" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, usageError("--%s %s: %v", name, p, err)
		}
		files = append(files, kube.File{Key: fileKey(renderFiles[name], p), Data: data})
		local[name] = p
	}
	return files, local, nil
}

// renderRunFlags are the run flags given, as a shard gets them: each
// "--name=value" (a repeated flag once per value; a file through where),
// the run store off and JSON on stdout. The config run would find in this
// folder is named with --config, as it travels in the ConfigMap.
func renderRunFlags(cmd *cobra.Command, where func(name, value string) string) []string {
	var argv []string
	cfgGiven := cmd.Flags().Changed("config")
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if isKubeFlag(fl.Name) || slices.Contains(kube.CoordinatorFlags, fl.Name) {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				argv = append(argv, "--"+fl.Name+"="+where(fl.Name, v))
			}
			return
		}
		v := fl.Value.String()
		if fl.Name == "config" && v == noConfig {
			argv = append(argv, "--config="+noConfig)
			return
		}
		argv = append(argv, "--"+fl.Name+"="+where(fl.Name, v))
	})
	if !cfgGiven {
		if found, err := configPath(cmd, ""); err == nil && found != "" {
			argv = append(argv, "--config="+where("config", found))
		} else {
			// The pod's folder has none: say so, as this folder has none.
			argv = append(argv, "--config="+noConfig)
		}
	}
	return append(argv, "--history="+noHistory, "--output=json")
}

// kubeOwn are kube render's own flags, not given to the shards.
var kubeOwn = []string{"shards", "image", "name", "namespace", "output", "cpu", "memory", "cpu-limit", "memory-limit",
	"coordinator-cpu", "coordinator-memory", "anti-affinity", "tape-claim", "report-claim", "token-secret",
	"no-coordinator", "port", "retries"}

func isKubeFlag(name string) bool { return slices.Contains(kubeOwn, name) }

// checkShardRun runs run's own checks on argv (run's arguments, the files
// where they are on this machine) without replaying: the flags, the
// config, the tape, the target. It returns the seed run picked at random
// (chaos or a random order), nil when none: every shard must be given it.
func (a *app) checkShardRun(cmd *cobra.Command, argv []string) (*int64, error) {
	var seed *int64
	checked := false
	a.checkRun = func(r *replay.Replay) error {
		checked = true
		seed = randomSeed(r)
		return nil
	}
	defer func() { a.checkRun = nil }()
	root := a.rootCommand()
	root.SetArgs(argv)
	root.SetIn(a.stdin)
	root.SetOut(io.Discard)
	root.SetErr(a.errOut)
	if err := root.ExecuteContext(cmd.Context()); err != nil {
		return nil, &exitError{code: exitBadInput, err: fmt.Errorf("kube render: the shards' run would refuse this: %w", err)}
	}
	if !checked {
		return nil, fmt.Errorf("kube render: the shards' run flags were not checked (a bug in replayctl)")
	}
	return seed, nil
}

// isLoopbackHost says whether host names this machine.
func isLoopbackHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// fileKey is a file's name in the ConfigMap: prefix and its base name,
// each character a ConfigMap key cannot hold as '_'.
func fileKey(prefix, p string) string {
	base := prefix + filepath.Base(p)
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, base)
}
