package knobs

import (
	"strings"
	"time"

	"github.com/replayctl/replayctl/chaos"
	"github.com/replayctl/replayctl/forward"
	"github.com/replayctl/replayctl/mock"
	"github.com/replayctl/replayctl/record"
	"github.com/replayctl/replayctl/report"
	"github.com/replayctl/replayctl/transport"
)

// The commands that replay a tape with run's flags: kube render takes
// run's flag set for its shards.
var replays = []string{"run", "kube render"}

// tapeReaders are the commands that read a tape with --max-line in bytes.
var tapeReaders = []string{"run", "kube render", "debug", "shrink", "compare", "convert", "diff", "export", "inspect", "redact"}

// Table is every knob, in the order of run's --help where run has it.
var Table = []Knob{
	{
		Name:    "speed",
		Doc:     "realtime | fast | stepped | Nx (10x) | fixed:50ms | rps:500",
		Default: "realtime", Commands: replays,
		Variants: []Variant{
			{Command: "debug", Default: "fast", Doc: "pacing of continue: fast | realtime | Nx (10x) | fixed:50ms | rps:5", Why: "debug paces only what continue sends; stepping is its own"},
			{Command: "shrink", Default: "fast", Doc: "pacing of each replay: fast | realtime | Nx (10x) | fixed:50ms | rps:500 (a failure that needs realtime needs it here too)", Why: "shrink replays a tape hundreds of times: fast unless the failure needs the pace"},
			{Command: "compare", Default: "fast", Doc: "pacing of each replay: fast | realtime | Nx (10x) | fixed:50ms | rps:500", Why: "compare replays three times and compares answers, not pace"},
		},
		ConfigKey: "speed",
		Options:   []string{"replay.WithSpeed", "replay.SpeedText"},
		Said:      []string{"Realtime by default", "realtime (the default)"},
		Renamed:   "WithSpeed takes a typed replay.Speed, SpeedText the text a person wrote",
	},
	{
		Name:    "ignore",
		Doc:     "a path not compared, e.g. result.content[*].annotations or **.timestamp (repeatable)",
		Default: []string(nil), Commands: []string{"run", "kube render", "compare", "diff"},
		Variants: []Variant{
			{Command: "debug", Doc: "a path not compared, e.g. result.content[*].annotations (repeatable)", Why: "debug's help is kept short"},
			{Command: "shrink", Doc: "a path not compared, e.g. **.timestamp (repeatable)", Why: "shrink's help is kept short"},
		},
		ConfigKey: "validation.ignore_fields",
		Options:   []string{"replay.Ignore"},
		Renamed:   "the config file's validation section names its keys after what they hold (ignore_fields, as a rule's)",
	},
	{
		Name:    "chaos",
		Doc:     "inject seeded faults, kind=probability,…: e.g. malformed=0.05,timeout=0.02 (kinds: " + kindList(chaos.Kinds()) + ")",
		Default: "", Commands: replays,
		Variants: []Variant{
			{Command: "serve", Doc: "inject seeded faults toward the client, kind=probability,…: e.g. delay=0.1,error=0.05 (kinds: " + kindList(chaos.ServeKinds()) + ")", Why: "serve's faults spoil the answers to its client (chaos.ServeKinds), not the messages to a server"},
		},
		ConfigKey: "chaos.faults",
		Options:   []string{"replay.Chaos"},
		Renamed:   "the config file writes the faults as a mapping kind: probability under chaos",
	},
	{
		Name:    "seed",
		Doc:     "the chaos seed: the same seed gives the same faults (random, and printed, when not given)",
		Default: int64(0), Commands: []string{"run", "kube render", "serve"},
		Variants: []Variant{
			{Command: "compare", Doc: "the seed of --order random and of a config's chaos, for all three runs (default: the first run picks one and the others take it)", Why: "compare shares one seed between its three runs"},
		},
		ConfigKey: "chaos.seed",
		Options:   []string{"replay.Seed"},
	},
	{
		Name:    "chaos-from",
		Doc:     "replay exactly the faults of an earlier run's JSON report",
		Default: "", Commands: replays,
		Variants: []Variant{
			{Command: "shrink", Doc: "shrink the faults of an earlier chaos run's JSON report with the tape", Why: "shrink makes the faults smaller, it does not replay them as they were"},
		},
		NoConfig: "a report of an earlier run is named for one run, not kept in a config",
		Options:  []string{"replay.ChaosFrom"},
	},
	{
		Name:    "config",
		Doc:     "a YAML replay config (replayctl config example); flags override it (default: replayctl.yaml or .replayctl.yaml in the current folder; none: no file)",
		Default: "", Commands: replays,
		Variants: []Variant{
			{Command: "debug", Doc: "a YAML replay config (transformations, validation, ...); flags override it (default: replayctl.yaml or .replayctl.yaml in the current folder; none: no file)", Why: "debug names the parts it uses"},
			{Command: "shrink", Doc: "a YAML replay config (validation rules, transformations); flags override it (default: replayctl.yaml or .replayctl.yaml in the current folder; none: no file)", Why: "shrink names the parts it uses"},
			{Command: "compare", Doc: "a YAML replay config for each replay (transformations, filters, validation); default: replayctl.yaml or .replayctl.yaml in the current folder", Why: "compare applies it to each of its three replays"},
			{Command: "diff", Doc: "a replay config whose validation section (normalize, ignore_fields, tolerance) says how values compare", Why: "diff reads only the validation section"},
		},
		NoConfig: "the config file cannot name itself",
		Options:  []string{"replay.ConfigFile"},
		Renamed:  "replay.Config takes a parsed file; ConfigFile its path",
	},
	{
		Name:    "threshold",
		Doc:     `a condition the run must meet, k6-style: "p99<200ms", "error_rate<1%", "validation_failed==0", "throughput>500", "achieved_ratio>=0.95"; on one method or tool with a filter: "p99{method:tools/call}<200ms", "error_rate{tool:search}<1%" (repeatable; exit 1 if one fails)`,
		Default: []string(nil), Commands: replays,
		Variants: []Variant{
			{Command: "coordinate", Doc: `a condition the merged run must meet, as run's: "p99<200ms" (repeatable; the shards' own thresholds are judged on the merged data too)`, Why: "coordinate checks the shards' merged data"},
			{Command: "merge", Doc: `a condition the merged figures must meet, as run's: "p99<200ms", "error_rate<1%" (repeatable; exit 1 if one fails); the reports' own thresholds are judged again too`, Why: "merge checks the merged reports"},
		},
		ConfigKey: "thresholds",
		Options:   []string{"replay.Thresholds"},
		Renamed:   "the flag is repeated once per threshold; the key and the option take the list",
	},
	{
		Name:    "include-handshake",
		Doc:     "count the handshake (initialize, server/discover), which waits for the server to start, in the headline latency and its thresholds; without it, it is reported apart",
		Default: false, Commands: replays,
		NoConfig: "a choice of how one report is read, left to the command line",
		Options:  []string{"replay.IncludeHandshake"},
	},
	{
		Name:    "method-limit",
		Doc:     "methods, and tools, prompts and resources, the report breaks its results down by (each); the rest are counted as not broken down",
		Default: report.DefaultMethodLimit, Commands: replays,
		NoConfig: "a bound on one report, left to the command line",
		Options:  []string{"replay.MethodLimit"},
		Said:     []string{"100"},
	},
	{
		Name:    "order",
		Doc:     "causal (wait for the answers recorded before each message) | sequential | none | random (causal, each run of client messages shuffled by --seed)",
		Default: "causal", Commands: replays,
		Variants: []Variant{
			{Command: "debug", Doc: "causal | sequential | none", Why: "debug steps one message at a time: no random order"},
			{Command: "shrink", Doc: "causal | sequential | none", Why: "a shrunk tape must fail the same way each try: no random order"},
			{Command: "compare", Doc: "causal | sequential | none | random (as run; the three runs share one seed)", Why: "compare's three runs share one seed"},
		},
		NoConfig: "the config file does not set the order yet",
		Options:  []string{"replay.Order"},
		Said:     []string{"Causal"},
	},
	{
		Name:    "timeout",
		Doc:     "bound on every exchange with the target: each answer (then it is cancelled), each write, dial and handshake",
		Default: 30 * time.Second, Commands: replays,
		Variants: []Variant{
			{Command: "debug", Doc: "bound on every exchange with the target: each answer, each write, dial and handshake", Why: "debug's help is kept short"},
			{Command: "shrink", Doc: "bound on every exchange with the target (a timeout failure takes this long per try)", Why: "shrink says what a timeout costs per try"},
			{Command: "compare", Doc: "bound on every exchange with a target: each answer, write, dial and handshake", Why: "compare has two or three targets"},
		},
		ConfigKey: "performance.timeout",
		Options:   []string{"replay.Timeout"},
		Said:      []string{"30s"},
	},
	{
		Name:    "ask-wait",
		Doc:     "how long a session holds its later messages for a request the recorded server made (roots/list, sampling, elicitation) that the live server has not made yet; after it, the session goes on, and a later ask is still answered from the tape (at most --timeout)",
		Default: 1 * time.Second, Commands: []string{"run", "kube render", "debug", "shrink", "compare"},
		NoConfig: "the config file does not set it yet",
		Options:  []string{"replay.AskWait"},
		Said:     []string{"1s"},
	},
	{
		Name:    "max-inflight",
		Doc:     "requests in flight at most, per session",
		Default: 1000, Commands: []string{"run", "kube render", "shrink"},
		ConfigKey: "performance.max_inflight",
		Options:   []string{"replay.MaxInflight"},
		Said:      []string{"1000"},
	},
	{
		Name:      "spin",
		Doc:       "how long before each paced message's due time its session stops sleeping and yields in a loop (timers fire up to ~1ms late): sends within microseconds, keeps a core busy that long before each message; 0: never",
		Default:   time.Millisecond,
		Commands:  []string{"run", "kube render", "debug"}, // debug: what continue paces
		ConfigKey: "performance.spin",
		Options:   []string{"replay.Spin"},
		Said:      []string{"1ms"},
	},
	{
		Name:      "gc-headroom",
		Doc:       "garbage a paced replay (realtime, Nx, fixed, rps), or a fast one (one session or a load), may make between two of the Go collector's runs while it runs, e.g. 64MiB (a collection holds answers, and the calls waiting for them, for milliseconds on one core; at fast, GOGC's pace took 1/6 of the instructions); 0: Go's own pace (GOGC)",
		Default:   Size(64 << 20),
		Commands:  []string{"run", "kube render", "debug"}, // debug: what continue paces
		ConfigKey: "performance.gc_headroom",
		Options:   []string{"replay.GCHeadroom"},
		Said:      []string{"64 MiB", "64MiB"},
		Renamed:   "GC is written in capitals in Go names (runtime.GC, debug.SetGCPercent)",
	},
	{
		Name:    "sessions",
		Doc:     "virtual copies of each recorded session, each on its own connection (load)",
		Default: 1, Commands: replays,
		Variants: []Variant{
			{Command: "compare", Doc: "virtual copies of each recorded session, each on its own connection", Why: "compare is not a load test"},
		},
		ConfigKey: "performance.sessions",
		Options:   []string{"replay.Sessions"},
		Said:      []string{"1"},
	},
	{
		Name:    "ramp",
		Doc:     "spread the virtual sessions' starts over this time (realtime and Nx)",
		Default: time.Duration(0), Commands: replays,
		ConfigKey: "performance.ramp",
		Options:   []string{"replay.Ramp"},
	},
	{
		Name:    "max-line",
		Doc:     "longest tape line accepted, e.g. 16MiB",
		Default: Size(8 << 20), Commands: append([]string{"serve"}, tapeReaders...),
		Variants: []Variant{
			{Command: "import", Doc: "longest line accepted, e.g. 16MiB", Why: "import reads foreign files, not tapes"},
		},
		NoConfig: "a bound on reading the tape, before any config applies",
		Options:  []string{"replay.MaxLine", "serve.MaxLine"},
		Said:     []string{"8 MiB", "DefaultMaxLine"},
	},
	{
		Name:    "max-document",
		Doc:     "longest JSON document on one line accepted (an Agent VCR cassette), e.g. 128MiB",
		Default: Size(64 << 20), Commands: []string{"run", "kube render", "compare", "inspect", "convert", "import", "diff", "export", "redact"},
		NoConfig: "a bound on reading the tape, before any config applies",
		Options:  []string{"replay.MaxDocument", "tape.WithMaxDocument"},
		Said:     []string{"64 MiB", "DefaultMaxDocument"},
	},
	{
		Name:    "timeline-limit",
		Doc:     "messages kept in the report's timeline",
		Default: report.DefaultTimelineLimit, Commands: replays,
		NoConfig: "a bound on one report, left to the command line",
		Options:  []string{"replay.TimelineLimit"},
		Said:     []string{"report.DefaultTimelineLimit"},
	},
	{
		Name:    "on-error",
		Doc:     "at a failed or unanswered message: continue, stop the replay there, or retry (transient target errors, up to --max-retries, then continue); pause: replayctl debug",
		Default: "continue", Commands: replays,
		Variants: []Variant{
			{Command: "debug", Default: "pause", Doc: "a failed, error or timeout answer: pause (stop there) or continue", Why: "debug stops where something failed, for a person to look"},
		},
		ConfigKey: "error_handling.strategy",
		Options:   []string{"replay.OnError"},
		Said:      []string{"Continue"},
		Renamed:   "the config file's error_handling section calls the policy its strategy",
	},
	{
		Name:    "validate-notifications",
		Doc:     "compare the server's notifications with the recorded ones (by method, in order)",
		Default: false, Commands: replays,
		Variants: []Variant{
			{Command: "shrink", Doc: "compare the server's notifications with the recorded ones", Why: "shrink's help is kept short"},
		},
		NoConfig: "the config file does not set it yet",
		Options:  []string{"replay.ValidateNotifications"},
	},
	{
		Name:    "max-retries",
		Doc:     "retries of a message the target asked to have again (HTTP 408, 429, 5xx; honours Retry-After)",
		Default: 3, Commands: replays,
		ConfigKey: "error_handling.max_retries",
		Options:   []string{"replay.MaxRetries"},
		Said:      []string{"3"},
	},
	{
		Name:      "retry-delay",
		Default:   100 * time.Millisecond,
		NoFlag:    "the first wait before a retry; the target's Retry-After usually says it",
		ConfigKey: "error_handling.retry_delay",
		Options:   []string{"replay.RetryDelay"},
		Said:      []string{"100ms"},
	},
	{
		Name:    "max-message",
		Doc:     "longest message the target may send (a stdout line, an HTTP body after decompression, an SSE event), e.g. 64MiB; a longer one fails the target (exit 3)",
		Default: Size(transport.DefaultMaxMessage), Commands: []string{"run", "kube render", "debug", "shrink"},
		Variants: []Variant{
			{Command: "compare", Doc: "longest message a target may send, e.g. 64MiB; a longer one fails the target", Why: "compare has two or three targets"},
			{Command: "serve", Doc: "longest message a client may send, e.g. 64MiB", Why: "serve is the server: it bounds its clients"},
			{Command: "record", Doc: "longest message either side may send, e.g. 64MiB; over stdio a longer one ends the recording, over HTTP it is relayed but not recorded", Why: "record stands between a client and a server and bounds both"},
		},
		NoConfig: "a bound on reading the target, before any config applies",
		Options:  []string{"replay.MaxMessage", "record.WithMaxMessage", "record.StdioMaxMessage"},
		Said:     []string{"16 MiB", "DefaultMaxMessage"},
	},
	{
		Name:    "http-client",
		Doc:     "the client that POSTs to an http:// --target: lean (an HTTP/1.1 client of replayctl's own, about half the CPU per request) or std (Go's net/http); https, a proxy (HTTP_PROXY) and a --target that redirects use net/http with either",
		Default: string(transport.PosterLean), Commands: []string{"run", "kube render", "debug", "shrink"},
		NoConfig: "the config file does not name the target, whose client this is",
		Options:  []string{"replay.Target.WithHTTPClient"},
		Said:     []string{`"lean" (the default`},
		Renamed:  "its option is a method of the HTTP target (replay.Target), as the target's other settings are, and Go writes the initialism HTTP",
	},
	{
		Name:    "http-spare",
		Doc:     "idle connections each session of an http:// --target keeps dialed ahead with --http-client lean, so that a request sent while earlier ones await their answers (--order none) does not wait for a dial; 0: none",
		Default: 1, Commands: []string{"run", "kube render", "debug", "shrink"},
		NoConfig: "the config file does not name the target, whose client this is",
		Options:  []string{"replay.Target.WithHTTPSpare"},
		Said:     []string{"DefaultHTTPSpare (1)", "1"},
		Renamed:  "its option is a method of the HTTP target (replay.Target), as the target's other settings are, and Go writes the initialism HTTP",
	},
	{
		Name:    "validation",
		Doc:     "how answers are compared where no validation rule of the config says: exact | structural (same shape and types) | partial (a rule's required fields) | schema (the shape MCP requires) | contract (run --contract FILE); overrides the config's validation.mode",
		Default: "exact", Commands: []string{"run", "kube render", "debug", "shrink"},
		ConfigKey: "validation.mode",
		Options:   []string{"replay.Validation"},
		Said:      []string{"the default"},
		Renamed:   "the config file's validation section calls it its mode",
	},
	{
		Name:    "history",
		Doc:     "keep the run in the run store in this folder (history.db; made when missing); default $REPLAYCTL_HISTORY, then the config's history key; none: keep no run",
		Default: "", Commands: replays,
		Variants: []Variant{
			{Command: "history", Doc: "the run store's folder (default $REPLAYCTL_HISTORY)", Why: "history reads the store that run writes"},
		},
		ConfigKey: "history",
		NoOption:  "the run store is kept by the CLI (package history), not by a replay",
	},
	{
		Name:    "max-conns",
		Doc:     "over HTTP, the connections held at once (lowered to what the open-file limit leaves room for); at it, the connection waiting on its client longest is closed for a new one",
		Default: transport.DefaultMaxConns, Commands: []string{"serve", "record"},
		NoConfig: "the config file is a replay's; serve and record take flags",
		Options:  []string{"serve.MaxConns"},
		Said:     []string{"DefaultMaxConns"},
	},
	{
		Name:    "body-timeout",
		Doc:     "over HTTP, the time a client has to send a request's whole body; a body still arriving then is cut with 408",
		Default: transport.DefaultBodyTimeout, Commands: []string{"serve", "record"},
		NoConfig: "the config file is a replay's; serve and record take flags",
		Options:  []string{"transport.BodyReadTimeout", "record.WithBodyReadTimeout"},
		Said:     []string{"DefaultBodyTimeout", "10s"},
		Renamed:  "the options say what times out: the body's read",
	},
	{
		Name:    "body-budget",
		Doc:     "over HTTP, the request body bytes held at once over all connections, e.g. 64MiB; a body that would take more is refused with 503 and Retry-After",
		Default: Size(transport.DefaultBodyBudget), Commands: []string{"serve", "record"},
		NoConfig: "the config file is a replay's; serve and record take flags",
		Options:  []string{"transport.BodyBudget", "record.WithBodyBudget"},
		Said:     []string{"DefaultBodyBudget", "64 MiB"},
	},
	{
		Name:    "idle-timeout",
		Doc:     "over HTTP, close a session idle this long (no request, no GET stream), as a client that left without DELETE; 0: never",
		Default: time.Duration(0), Commands: []string{"serve"},
		NoConfig: "the config file is a replay's; serve takes flags",
		Options:  []string{"transport.IdleTimeout"},
	},
	{
		Name:    "max-batch",
		Doc:     "the most messages in one JSON-RPC batch; a longer batch is answered with one error",
		Default: transport.DefaultMaxBatch, Commands: []string{"serve"},
		NoConfig: "the config file is a replay's; serve takes flags",
		Options:  []string{"transport.MaxBatch"},
		Said:     []string{"DefaultMaxBatch", "1000"},
	},
	{
		Name:    "max-misses",
		Doc:     "the misses kept in detail (listed, in --report); later ones are only counted",
		Default: mock.DefaultMaxMisses, Commands: []string{"serve"},
		NoConfig: "the config file is a replay's; serve takes flags",
		Options:  []string{"mock.WithMaxMisses"},
		Said:     []string{"DefaultMaxMisses", "1000"},
	},
	{
		Name:    "max-upstreams",
		Doc:     "--mode new: the upstream connections (server processes, with a command) open at once, one per client session with a miss; at it, the one idle longest is stopped",
		Default: forward.DefaultMaxUpstreams, Commands: []string{"serve"},
		NoConfig: "the config file is a replay's; serve takes flags",
		Options:  []string{"forward.MaxUpstreams"},
		Said:     []string{"DefaultMaxUpstreams", "8"},
	},
	{
		Name:    "upstream-idle-timeout",
		Doc:     "--mode new: stop a client session's upstream connection (its server process) after this long without a forwarded request; its next miss starts a new one",
		Default: forward.DefaultIdleTimeout, Commands: []string{"serve"},
		NoConfig: "the config file is a replay's; serve takes flags",
		Options:  []string{"forward.IdleTimeout"},
		Said:     []string{"DefaultIdleTimeout", "60s"},
		Renamed:  "package forward has only upstreams: its option need not say so",
	},
	{
		Name:    "upstream-timeout",
		Doc:     "--mode new: how long to wait for the upstream's answer to a forwarded request; then the client gets an error and the upstream notifications/cancelled (not for initialize, which MCP says must not be cancelled)",
		Default: forward.DefaultAnswerTimeout, Commands: []string{"serve"},
		NoConfig: "the config file is a replay's; serve takes flags",
		Options:  []string{"forward.AnswerTimeout"},
		Said:     []string{"DefaultAnswerTimeout", "60s"},
		Renamed:  "package forward has only upstreams, and the option says what it waits for: the answer",
	},
	{
		Name:    "stop-timeout",
		Doc:     "how long the server has to exit once the client is gone (then SIGTERM, then SIGKILL)",
		Default: 2 * time.Second, Commands: []string{"record"},
		Variants: []Variant{
			{Command: "serve", Doc: "an upstream server command has this long to exit once its client is gone (then SIGTERM, then SIGKILL)", Why: "serve's server is the upstream of its record-or-replay modes"},
		},
		NoConfig: "the config file is a replay's; record takes flags",
		Options:  []string{"record.StdioStopTimeout"},
		Said:     []string{"2s"},
	},
	{
		Name:    "drain",
		Doc:     "stdin a file (record < requests.jsonl): once it has ended, how long the server may say nothing before its stdin is closed with requests still due (counted from its last message, and not before its first answer, so a server slow to start is waited for); those never answered are named and the exit status is 1; 0: wait for every answer (or Ctrl-C)",
		Default: record.DefaultDrain, Commands: []string{"record"},
		Variants: []Variant{
			{Command: "serve", Doc: "only when serve records (--mode record, or once before its tape exists) over stdio with stdin a file; other modes ignore it: once the file has ended, how long the server may say nothing (from its first answer on) before its stdin is closed with requests still due; 0: wait for every answer (or Ctrl-C)", Why: "serve records only in its record-or-replay modes"},
		},
		NoConfig: "the config file is a replay's; record takes flags",
		Options:  []string{"record.StdioDrain"},
		Said:     []string{"DefaultDrain", "30s"},
	},
}

// ConfigOnly are the keys of the config file that are no knob: rules and
// filters, each with why it has no flag.
var ConfigOnly = map[string]string{
	"start_offset":       "a window of one tape, written beside the filters it goes with",
	"end_offset":         "a window of one tape, written beside the filters it goes with",
	"include_methods":    "a filter: a list, written once in the file",
	"exclude_methods":    "a filter: a list, written once in the file",
	"skip_notifications": "a filter, written beside the others",
	"transformations":    "rules with conditions: YAML, not a flag",
	"validation.enabled": "turning validation off is for a config shared by several runs",
	"validation.normalize": "normalisers may be regular expressions with placeholders: YAML, not a flag " +
		"(compare and diff take --normalize for the named ones)",
	"validation.tolerance": "numeric tolerances per run: YAML",
	"validation.rules":     "rules with scopes: YAML, not a flag",
	"chaos.targets":        "faults aimed at methods: YAML, not a flag",
}

// OptionOnly are the options of package replay that are no knob: hooks,
// targets, and values a program has that a person does not write, each
// with why.
var OptionOnly = map[string]string{
	"Against":          "the target: run's --target, --mock-tape and a command after -- choose it",
	"Shard":            "--shard I/N and --shards N: one option from two flags",
	"StartAt":          "a coordinator's common start, not a person's",
	"StartTargetFirst": "an order of work, not a limit: run gives it whenever it replays one process's share (not with --local-shards or a coordinator)",
	"Config":           "a parsed config file, for programs (ConfigFile is --config)",
	"ChaosFaults":      "the faults of a plan, for shrink (run's --chaos-from reads them from a report)",
	"Logger":           "the CLI's --log-level and --log-format make it",
	"Steps":            "the CLI's Enter key at --speed stepped",
	"Control":          "makes the replay a controlled one (package debug, the browser view); replayctl debug gives it",
	"BeforeSend":       "a hook",
	"OnResult":         "a hook",
	"OnFault":          "a hook",
	"OnSessionEnd":     "a hook",
	"OnStep":           "a hook (stepped replays)",
	"OnEvent":          "a hook",
	"Events":           "consumers of the event stream: run's --out, --metrics and --ui add them",
	"Defaults":         "applies other options as defaults",
	"Contract":         "run's --contract reads the file into it",
	"Rerecord":         "run's --rerecord and its redaction flags",
}

// kindList is the kinds' names, comma separated.
func kindList[K ~string](ks []K) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
