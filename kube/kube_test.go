package kube

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var tape = File{Key: "t.jsonl", Data: []byte("{\"type\":\"header\"}\n{\"é\":\"\\u0000 tab\\t\"}\n\n")}

func render(t *testing.T, shards int, opts ...Option) *Manifests {
	t.Helper()
	m, err := New("load", "registry.example/replayctl:v1", shards, tape, []string{"--speed=fast", "--sessions=20"}, nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// roundTrip writes the manifests as YAML and reads them back strictly.
func roundTrip(t *testing.T, m *Manifests) []runtime.Object {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteYAML(&buf, m.Objects()); err != nil {
		t.Fatal(err)
	}
	objs, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatalf("decode what WriteYAML wrote: %v\n%s", err, buf.String())
	}
	if len(objs) != len(m.Objects()) {
		t.Fatalf("decoded %d objects, wrote %d", len(objs), len(m.Objects()))
	}
	for _, unwanted := range []string{"\nstatus:", "creationTimestamp"} {
		if strings.Contains(buf.String(), unwanted) {
			t.Errorf("the YAML has %q: the API server sets it", unwanted)
		}
	}
	return objs
}

func TestRenderIndexedJob(t *testing.T) {
	m := render(t, 7, Token("s3cret"), Thresholds("p99<1s"), CoordinatorArgs("--abort-on-fail=true"))
	objs := roundTrip(t, m)
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, kindName(o))
	}
	if want := []string{"Secret load-token", "ConfigMap load-tape", "Service load-coordinator", "Job load-coordinator", "Job load"}; !slices.Equal(kinds, want) {
		t.Fatalf("objects %v, want %v (in apply order)", kinds, want)
	}
	job := objs[4].(*batchv1.Job)
	s := job.Spec
	if *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 7 || *s.Parallelism != 7 {
		t.Errorf("completionMode %v, completions %d, parallelism %d; want Indexed, 7, 7", *s.CompletionMode, *s.Completions, *s.Parallelism)
	}
	if *s.BackoffLimitPerIndex != DefaultRetries || *s.PodReplacementPolicy != batchv1.Failed || s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("backoffLimitPerIndex %d, podReplacementPolicy %s, restartPolicy %s", *s.BackoffLimitPerIndex, *s.PodReplacementPolicy, s.Template.Spec.RestartPolicy)
	}
	c := s.Template.Spec.Containers[0]
	wantArgs := []string{"run", "--shard=$(REPLAYCTL_SHARD_INDEX)/7", "--coordinator=http://load-coordinator:7340", "--coordinator-wait=5m0s", "--speed=fast", "--sessions=20", FilesDir + "/t.jsonl"}
	if !slices.Equal(c.Args, wantArgs) {
		t.Errorf("shard args\n got %q\nwant %q", c.Args, wantArgs)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if e := env[EnvShardIndex]; e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("%s = %+v, want the completion index annotation", EnvShardIndex, e)
	}
	secret := objs[0].(*corev1.Secret)
	if e := env[EnvToken]; e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != secret.Name || e.ValueFrom.SecretKeyRef.Key != TokenKey {
		t.Errorf("%s = %+v, want the Secret %s key %s", EnvToken, e, secret.Name, TokenKey)
	}
	if string(secret.Data[TokenKey]) != "s3cret" {
		t.Errorf("the Secret's token is %q", secret.Data[TokenKey])
	}
	if c.Command[0] != Entrypoint || c.WorkingDir != WorkDir || *c.SecurityContext.RunAsUser != UID || !*c.SecurityContext.RunAsNonRoot || !*c.SecurityContext.ReadOnlyRootFilesystem {
		t.Errorf("container command %v, workdir %s, security %+v: want the image's conventions, non-root", c.Command, c.WorkingDir, c.SecurityContext)
	}
	if q := c.Resources.Requests[corev1.ResourceCPU]; q.Cmp(resource.MustParse(DefaultCPU)) != 0 {
		t.Errorf("cpu request %s, want %s", q.String(), DefaultCPU)
	}
	// The Service selects the coordinator's pod, and only it.
	svc := objs[2].(*corev1.Service)
	coord := objs[3].(*batchv1.Job)
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	if !sel.Matches(labels.Set(coord.Spec.Template.Labels)) || sel.Matches(labels.Set(job.Spec.Template.Labels)) {
		t.Errorf("Service selector %v; coordinator pod labels %v, shard pod labels %v", svc.Spec.Selector, coord.Spec.Template.Labels, job.Spec.Template.Labels)
	}
	if ca := coord.Spec.Template.Spec.Containers[0].Args; !slices.Equal(ca, []string{CoordinateCommand, "--shards=7", "--listen=0.0.0.0:7340", "--report=" + ReportDir + "/" + ReportFile, "--output=json", "--threshold=p99<1s", "--abort-on-fail=true"}) {
		t.Errorf("coordinator args %q", ca)
	}
	if got := svc.Spec.Ports[0].TargetPort.StrVal; got != coord.Spec.Template.Spec.Containers[0].Ports[0].Name {
		t.Errorf("Service targetPort %q is not the coordinator's port name", got)
	}
	// The ConfigMap holds the tape byte for byte.
	cm := objs[1].(*corev1.ConfigMap)
	if got := cm.Data[tape.Key]; got != string(tape.Data) {
		t.Errorf("ConfigMap %s = %q, want the tape %q", tape.Key, got, tape.Data)
	}
}

// TestRenderShardWaitsForTheCoordinator: the pod failure policy ends a
// shard's index on exit 1, and a shard that cannot reach its coordinator
// exits 1 once --coordinator-wait is over; so the shards wait as long as
// the coordinator waits for them (DefaultRegisterTimeout, 5m), not the
// 10 s a shard on the command line waits, or a coordinator pod that
// starts late (its image pulled) ends every index. A --coordinator-wait
// the user gave is kept; with no coordinator there is none.
func TestRenderShardWaitsForTheCoordinator(t *testing.T) {
	shardJob := func(m *Manifests) *batchv1.Job { return roundTrip(t, m)[len(m.Objects())-1].(*batchv1.Job) }
	waits := func(job *batchv1.Job) []string {
		var w []string
		for _, a := range job.Spec.Template.Spec.Containers[0].Args {
			if strings.HasPrefix(a, FlagCoordinatorWait) {
				w = append(w, a)
			}
		}
		return w
	}
	job := shardJob(render(t, 3))
	var exit1 batchv1.PodFailurePolicyAction
	for _, r := range job.Spec.PodFailurePolicy.Rules {
		if r.OnExitCodes != nil && r.OnExitCodes.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && slices.Contains(r.OnExitCodes.Values, 1) {
			exit1 = r.Action
		}
	}
	if exit1 != batchv1.PodFailurePolicyActionFailIndex {
		t.Fatalf("the policy's action on exit 1 is %q: the test assumes FailIndex", exit1)
	}
	if got, want := waits(job), []string{"--coordinator-wait=5m0s"}; !slices.Equal(got, want) {
		t.Errorf("shard waits %q, want %q", got, want)
	}
	if DefaultCoordinatorWait < 5*time.Minute {
		t.Errorf("DefaultCoordinatorWait %s is shorter than the coordinator's register timeout, 5m", DefaultCoordinatorWait)
	}
	m, err := New("load", "registry.example/replayctl:v1", 3, tape, []string{"--coordinator-wait=20m"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := waits(shardJob(m)), []string{"--coordinator-wait=20m"}; !slices.Equal(got, want) {
		t.Errorf("with the user's wait: %q, want %q only", got, want)
	}
	if got := waits(shardJob(render(t, 3, NoCoordinator()))); len(got) != 0 {
		t.Errorf("with no coordinator: %q, want none", got)
	}
}

func TestRenderAntiAffinity(t *testing.T) {
	for _, tc := range []struct {
		mode                string
		required, preferred int
	}{{"preferred", 0, 1}, {"required", 1, 0}, {"none", 0, 0}} {
		t.Run(tc.mode, func(t *testing.T) {
			job := render(t, 3, AntiAffinity(tc.mode)).Shards
			a := job.Spec.Template.Spec.Affinity
			if tc.mode == "none" {
				if a != nil {
					t.Fatalf("affinity %+v, want none", a)
				}
				return
			}
			pa := a.PodAntiAffinity
			if len(pa.RequiredDuringSchedulingIgnoredDuringExecution) != tc.required || len(pa.PreferredDuringSchedulingIgnoredDuringExecution) != tc.preferred {
				t.Fatalf("anti-affinity %+v, want %d required, %d preferred", pa, tc.required, tc.preferred)
			}
			var term corev1.PodAffinityTerm
			if tc.required > 0 {
				term = pa.RequiredDuringSchedulingIgnoredDuringExecution[0]
			} else {
				term = pa.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm
			}
			sel := labels.SelectorFromSet(term.LabelSelector.MatchLabels)
			if term.TopologyKey != corev1.LabelHostname || !sel.Matches(labels.Set(job.Spec.Template.Labels)) {
				t.Errorf("term %+v: want the shard pods' labels per host name", term)
			}
		})
	}
}

func TestRenderBinaryTapeAndFiles(t *testing.T) {
	bin := File{Key: "t.jsonl.gz", Data: []byte{0x1f, 0x8b, 0xff, 0x00, 0xfe}}
	m, err := New("load", "img", 2, bin, nil, []string{"node", "server.js"}, Files(File{Key: "config-r.yaml", Data: []byte("speed: fast\n")}), NoCoordinator())
	if err != nil {
		t.Fatal(err)
	}
	objs := roundTrip(t, m)
	if len(objs) != 2 || m.Secret != nil || m.Service != nil || m.Coordinator != nil {
		t.Fatalf("without a coordinator: %d objects, want the ConfigMap and the Job", len(objs))
	}
	cm := objs[0].(*corev1.ConfigMap)
	if !bytes.Equal(cm.BinaryData[bin.Key], bin.Data) || cm.Data["config-r.yaml"] != "speed: fast\n" {
		t.Errorf("ConfigMap data %q binaryData %q", cm.Data, cm.BinaryData)
	}
	args := objs[1].(*batchv1.Job).Spec.Template.Spec.Containers[0].Args
	if want := []string{"run", "--shard=$(REPLAYCTL_SHARD_INDEX)/2", FilesDir + "/t.jsonl.gz", "--", "node", "server.js"}; !slices.Equal(args, want) {
		t.Errorf("args %q, want %q", args, want)
	}
}

func TestRenderTapeClaim(t *testing.T) {
	big := File{Key: "big.jsonl", Data: bytes.Repeat([]byte("x"), ConfigMapLimit+1)}
	_, err := New("load", "img", 2, big, nil, nil)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "PersistentVolumeClaim") {
		t.Fatalf("a tape over 1 MiB: %v, want ErrTooLarge naming the claim to use", err)
	}
	m, err := New("load", "img", 2, File{Key: "big.jsonl"}, nil, nil, TapeClaim("tapes"), ReportClaim("reports"))
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, m)
	if m.ConfigMap != nil {
		t.Errorf("a ConfigMap with the tape on a claim and no files")
	}
	ps := m.Shards.Spec.Template.Spec
	var claims []string
	for _, v := range append(ps.Volumes, m.Coordinator.Spec.Template.Spec.Volumes...) {
		if v.PersistentVolumeClaim != nil {
			claims = append(claims, v.Name+"="+v.PersistentVolumeClaim.ClaimName)
		}
	}
	if want := []string{"tape=tapes", "reports=reports"}; !slices.Equal(claims, want) {
		t.Errorf("claims %v, want %v", claims, want)
	}
	if args := ps.Containers[0].Args; args[len(args)-1] != TapeDir+"/big.jsonl" {
		t.Errorf("the tape's path %q, want it in %s", args[len(args)-1], TapeDir)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		jname  string
		image  string
		shards int
		opts   []Option
		want   string
	}{
		{"no shards", "load", "img", 0, nil, "shards 0"},
		{"too many shards", "load", "img", MaxShards + 1, nil, "want 1 to"},
		{"no image", "load", "", 2, nil, "no image"},
		{"bad name", "Load_1", "img", 2, nil, `name "Load_1"`},
		{"digit first", "1load", "img", 2, nil, `name "1load"`},
		{"name too long", strings.Repeat("a", 60), "img", 2, nil, "at most 51 characters"},
		{"bad quantity", "load", "img", 2, []Option{ShardResources("lots", "", "", "")}, `cpu "lots"`},
		{"request over limit", "load", "img", 2, []Option{ShardResources("", "1Gi", "", "512Mi")}, "over its limit"},
		{"bad anti-affinity", "load", "img", 2, []Option{AntiAffinity("sometimes")}, "anti-affinity"},
		{"bad port", "load", "img", 2, []Option{Port(0)}, "port 0"},
		{"bad retries", "load", "img", 2, []Option{Retries(-1)}, "retries -1"},
		{"bad namespace", "load", "img", 2, []Option{Namespace("Prod")}, `namespace "Prod"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.jname, tc.image, tc.shards, tape, nil, nil, tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestValidateFindsBrokenObjects: each rule of Validate fails the
// manifests it was written for.
func TestValidateFindsBrokenObjects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(m *Manifests)
		want   string
	}{
		{"indexed without completions", func(m *Manifests) { m.Shards.Spec.Completions = nil }, "completions: Required"},
		{"restart always", func(m *Manifests) { m.Shards.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways }, "restartPolicy"},
		{"FailIndex without per-index backoff", func(m *Manifests) { m.Shards.Spec.BackoffLimitPerIndex = nil }, "requires backoffLimitPerIndex"},
		{"exit code 0", func(m *Manifests) { m.Shards.Spec.PodFailurePolicy.Rules[0].OnExitCodes.Values = []int32{0} }, "exit code from 1 to 255"},
		{"unknown container", func(m *Manifests) { m.Shards.Spec.PodFailurePolicy.Rules[0].OnExitCodes.ContainerName = ptr("x") }, "container names"},
		{"replacement policy", func(m *Manifests) { m.Shards.Spec.PodReplacementPolicy = ptr(batchv1.TerminatingOrFailed) }, "podReplacementPolicy"},
		{"bad env name", func(m *Manifests) { m.Shards.Spec.Template.Spec.Containers[0].Env[0].Name = "1X" }, "env[0].name"},
		{"mount of no volume", func(m *Manifests) {
			m.Shards.Spec.Template.Spec.Containers[0].VolumeMounts[0].Name = "gone"
		}, "volumeMounts[0].name: Not found"},
		{"selector misses the coordinator", func(m *Manifests) { m.Service.Spec.Selector[LabelComponent] = "other" }, "does not select the coordinator"},
		{"selector takes the shards", func(m *Manifests) { delete(m.Service.Spec.Selector, LabelComponent) }, "selects the shards' pods too"},
		{"secret renamed", func(m *Manifests) { m.Secret.Name = "other" }, "Not found"},
		{"configmap renamed", func(m *Manifests) { m.ConfigMap.Name = "other" }, "Not found"},
		{"configmap too large", func(m *Manifests) { m.ConfigMap.Data["x"] = strings.Repeat("x", ConfigMapLimit) }, "Too long"},
		{"bad key", func(m *Manifests) { m.ConfigMap.Data["a/b"] = "" }, "data[a/b]"},
		{"request over limit", func(m *Manifests) {
			m.Shards.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse("1Gi")
		}, "must be less than or equal to memory limit"},
		{"weight", func(m *Manifests) {
			m.Shards.Spec.Template.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight = 0
		}, "range 1-100"},
		{"host name too long", func(m *Manifests) { m.Shards.Name = strings.Repeat("a", 62) }, "pod host name"},
		{"probe port", func(m *Manifests) { m.Coordinator.Spec.Template.Spec.Containers[0].Ports[0].Name = "web" }, "tcpSocket.port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := render(t, 3)
			if err := Validate(m); err != nil {
				t.Fatalf("before: %v", err)
			}
			tc.break_(m)
			err := Validate(m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestDecodeIsStrict(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteYAML(&buf, render(t, 2).Objects()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"unknown field", "  completionMode: Indexed\n", "  completionMode: Indexed\n  completionMod: Indexed\n", "unknown field"},
		{"unknown kind", "kind: Service\n", "kind: Ingress\n", `kind "Ingress"`},
		{"wrong type", "  parallelism: 2\n", "  parallelism: two\n", "parallelism"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Replace(buf.String(), tc.from, tc.to, 1)
			if bad == buf.String() {
				t.Fatalf("%q is not in the YAML", tc.from)
			}
			if _, err := Decode([]byte(bad)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// FuzzDecode: any input decodes or fails, without a panic; what decodes
// writes back and decodes to the same objects.
func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	m, err := New("load", "img", 2, tape, []string{"--speed=fast"}, nil, Token("t"))
	if err != nil {
		f.Fatal(err)
	}
	if err := WriteYAML(&buf, m.Objects()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := Decode(data)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteYAML(&out, objs); err != nil {
			return // a value the encoder refuses, as the API server would
		}
		again, err := Decode(out.Bytes())
		if err != nil || len(again) != len(objs) {
			t.Fatalf("what WriteYAML wrote does not decode back: %v", err)
		}
	})
}
