package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/replayctl/replayctl/internal/testtape"
	"github.com/replayctl/replayctl/kube"
	"github.com/replayctl/replayctl/transport"
)

// The binaries of the API server test, by environment variable: a
// kube-apiserver and an etcd (required), a kube-controller-manager (its
// Job controller creates the pods; without it the test stops after the
// apply). See README, "Kubernetes".
const (
	envKubeAPIServer         = "KUBE_APISERVER"
	envEtcd                  = "ETCD"
	envKubeControllerManager = "KUBE_CONTROLLER_MANAGER"
)

// TestKubeRenderAppliesToAPIServer applies the rendered manifests to a
// real kube-apiserver (on loopback, over an etcd of its own) with strict
// field validation: every object is created as written; a Job broken
// on purpose is refused, so the server does validate. With a
// kube-controller-manager, its Job controller creates the shard pods (and
// the coordinator's, when replayctl coordinate is in the build), and they
// are run as local processes with the env and args the API server stored:
// together they send the test server exactly the requests of the
// unsharded run. Each pod is told its end as a kubelet would, and the Jobs
// complete.
func TestKubeRenderAppliesToAPIServer(t *testing.T) {
	apiserver, etcd := os.Getenv(envKubeAPIServer), os.Getenv(envEtcd)
	if apiserver == "" || etcd == "" {
		t.Skipf("set %s and %s to a kube-apiserver and an etcd binary to apply the manifests to a real API server (and %s to run the Job controller): see README, Kubernetes", envKubeAPIServer, envEtcd, envKubeControllerManager)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	for len(procExited) > 0 { // an earlier run's
		<-procExited
	}
	cl := startAPIServer(ctx, t, apiserver, etcd)

	srv := newCountingServer(t)
	tapePath := testtape.Record(t, transport.HTTP{URL: srv.srv.URL}, "http", testtape.Conversation("echo", `{"text":"call %d"}`, 3))
	srv.take()
	const n = 3
	// With replayctl coordinate in the build, the pods run coordinated;
	// without, on their own.
	coordinated := hasCoordinate(t)
	out := filepath.Join(t.TempDir(), "m.yaml")
	common := []string{tapePath, "--target", srv.srv.URL, "--sessions", "12", "--speed", "fast", "--seed", "7", "--chaos", "bad-params=0.2"}
	args := []string{"kube", "render", "--shards", strconv.Itoa(n), "--image", "registry.example/replayctl:v1", "--namespace", "default", "-o", out}
	if !coordinated {
		args = append(args, "--no-coordinator")
	}
	res := replayctl(t, append(args, common...)...)
	if res.code != 0 {
		t.Fatalf("render: exit %d\n%s", res.code, res.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	r := decodeRendered(t, data)
	for _, o := range r.objectsRaw {
		cl.create(t, o, http.StatusCreated)
	}
	// The coordinator's objects in any case.
	res = replayctl(t, "kube", "render", "examples/quickstart.jsonl", "--shards", "4", "--image", "img", "--name", "coord", "--namespace", "default", "--threshold", "p99<1s")
	if res.code != 0 {
		t.Fatalf("render with a coordinator: exit %d\n%s", res.code, res.stderr)
	}
	withCoord := decodeRendered(t, []byte(res.stdout))
	for _, o := range withCoord.objectsRaw {
		cl.create(t, o, http.StatusCreated)
	}
	// The server validates: an Indexed Job without completions is refused.
	broken := withCoord.shardJob.DeepCopy()
	broken.Name, broken.Spec.Completions = "broken", nil
	cl.create(t, broken, http.StatusUnprocessableEntity)

	var stored batchv1.Job
	cl.get(t, "/apis/batch/v1/namespaces/default/jobs/"+r.shardJob.Name, &stored)
	if *stored.Spec.CompletionMode != batchv1.IndexedCompletion || *stored.Spec.Completions != n || *stored.Spec.Parallelism != n {
		t.Fatalf("the stored Job: %+v", stored.Spec)
	}
	kcm := os.Getenv(envKubeControllerManager)
	if kcm == "" {
		t.Logf("the manifests were applied; set %s to run the Job controller and the pods it creates", envKubeControllerManager)
		return
	}
	startControllerManager(ctx, t, kcm, cl)
	pods := cl.waitPods(ctx, t, r.shardJob.Name, n)
	for _, p := range pods {
		t.Logf("the Job controller made pod %s (completion index %s)", p.Name, p.Annotations[batchv1.JobCompletionIndexAnnotation])
	}
	procs := make([]podProc, n)
	for _, p := range pods {
		i, err := strconv.Atoi(p.Annotations[batchv1.JobCompletionIndexAnnotation])
		if err != nil || i < 0 || i >= n || procs[i].command != nil {
			t.Fatalf("pod %s: completion index %q", p.Name, p.Annotations[batchv1.JobCompletionIndexAnnotation])
		}
		c := p.Spec.Containers[0]
		env := podEnv(t, r, c, podFields(p.ObjectMeta))
		if env[kube.EnvJobCompletionIndex] != strconv.Itoa(i) || env[kube.EnvShardIndex] != strconv.Itoa(i) {
			t.Errorf("pod %s: %s=%q, %s=%q, want %d", p.Name, kube.EnvJobCompletionIndex, env[kube.EnvJobCompletionIndex], kube.EnvShardIndex, env[kube.EnvShardIndex], i)
		}
		procs[i] = podProc{command: c.Command, args: expandArgs(c.Args, env), env: env}
	}
	var coordPods []corev1.Pod
	if coordinated {
		coordPods = cl.waitPods(ctx, t, r.coordJob.Name, 1)
		c := coordPods[0].Spec.Containers[0]
		env := podEnv(t, r, c, podFields(coordPods[0].ObjectMeta))
		outside, _ := clusterHere(t, r)
		coord := startPodProcs(t, r, []podProc{{command: c.Command, args: expandArgs(c.Args, env), env: env}}, outside)
		for i, res := range startPodProcs(t, r, procs, outside).wait() {
			if res.code != 0 {
				t.Errorf("shard pod %d: exit %d\n%s", i, res.code, res.stderr)
			}
		}
		cres := coord.wait()[0]
		if cres.code > 1 {
			t.Fatalf("the coordinator's pod: exit %d\n%s", cres.code, cres.stderr)
		}
		if s := reportOf(t, "the coordinator", cres).Summary.Shards; s == nil || s.Count != n || len(s.Missing) != 0 {
			t.Errorf("the coordinator's report: summary.shards %+v, want all %d", s, n)
		}
	} else {
		for i, rep := range runPodProcs(t, r, procs) {
			if s := rep.Summary.Shard; s == nil || s.Index != i || s.Count != n {
				t.Errorf("pod %d's report: summary.shard %+v", i, s)
			}
		}
	}
	gotBodies := srv.take()
	res = replayctl(t, append([]string{"run", "-q"}, common...)...)
	if res.code > 1 {
		t.Fatalf("the unsharded run: exit %d\n%s", res.code, res.stderr)
	}
	if want := srv.take(); len(want) == 0 || !maps.Equal(gotBodies, want) {
		t.Errorf("the pods the Job controller made sent %d distinct bodies, the unsharded run %d (or not as many times each)", len(gotBodies), len(want))
	}
	// As a kubelet: each pod ended (exit 0); the Jobs complete.
	for _, p := range append(pods, coordPods...) {
		cl.podSucceeded(t, p)
	}
	cl.waitJobComplete(ctx, t, r.shardJob.Name, n, true)
	if coordinated {
		cl.waitJobComplete(ctx, t, r.coordJob.Name, 1, false)
	}
	t.Logf("the Jobs completed (coordinated: %v): %d shard pods ran as local processes and sent the unsharded run's %d distinct request bodies", coordinated, n, len(gotBodies))
}

// apiClient speaks to the test's API server as its admin.
type apiClient struct {
	base  string
	token string
	http  *http.Client
	dir   string // the server's files
}

func (c *apiClient) do(ctx context.Context, method, path, contentType string, body []byte) (int, []byte, error) {
	code, b, _, err := c.doHeader(ctx, method, path, contentType, body)
	return code, b, err
}

// doHeader is do with the answer's header.
func (c *apiClient) doHeader(ctx context.Context, method, path, contentType string, body []byte) (int, []byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header, err
}

// create POSTs o with strict field validation and wants status.
func (c *apiClient) create(t *testing.T, o runtime.Object, status int) {
	t.Helper()
	var coll, name, ns string
	switch o := o.(type) {
	case *corev1.ConfigMap:
		coll, name, ns = "/api/v1/namespaces/%s/configmaps", o.Name, o.Namespace
	case *corev1.Secret:
		coll, name, ns = "/api/v1/namespaces/%s/secrets", o.Name, o.Namespace
	case *corev1.Service:
		coll, name, ns = "/api/v1/namespaces/%s/services", o.Name, o.Namespace
	case *batchv1.Job:
		coll, name, ns = "/apis/batch/v1/namespaces/%s/jobs", o.Name, o.Namespace
	default:
		t.Fatalf("create %T", o)
	}
	body, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	code, resp, header, err := c.doHeader(context.Background(), http.MethodPost, fmt.Sprintf(coll, ns)+"?fieldValidation=Strict", "application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	if code != status {
		t.Fatalf("create %T %s: status %d, want %d\n%s", o, name, code, status, resp)
	}
	if w := header.Values("Warning"); len(w) > 0 {
		t.Errorf("create %T %s: the server warns %q", o, name, w)
	}
}

func (c *apiClient) get(t *testing.T, path string, v any) {
	t.Helper()
	code, resp, err := c.do(context.Background(), http.MethodGet, path, "", nil)
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET %s: %d %v\n%s", path, code, err, resp)
	}
	if err := json.Unmarshal(resp, v); err != nil {
		t.Fatal(err)
	}
}

// procExited is closed when a server process of the test has ended
// (any of them: each is needed to the end).
var procExited = make(chan string, 8)

// poll calls check until it says done, or fails the test when ctx ends
// or a server process has ended.
func poll(ctx context.Context, t *testing.T, what string, check func() (bool, string)) {
	t.Helper()
	wait := 10 * time.Millisecond
	for {
		ok, state := check()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not before the deadline; last: %s", what, state)
		case name := <-procExited:
			t.Fatalf("%s: %s ended (its log follows); last: %s", what, name, state)
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

// waitPods waits until the Job controller has made n pods of job.
func (c *apiClient) waitPods(ctx context.Context, t *testing.T, job string, n int) []corev1.Pod {
	t.Helper()
	var pods corev1.PodList
	poll(ctx, t, "the Job controller makes the pods", func() (bool, string) {
		code, resp, err := c.do(ctx, http.MethodGet, "/api/v1/namespaces/default/pods?labelSelector="+batchv1.JobNameLabel+"%3D"+job, "", nil)
		if err != nil || code != http.StatusOK {
			return false, fmt.Sprintf("%d %v %s", code, err, resp)
		}
		pods = corev1.PodList{}
		if err := json.Unmarshal(resp, &pods); err != nil {
			return false, err.Error()
		}
		return len(pods.Items) == n, fmt.Sprintf("%d pods", len(pods.Items))
	})
	return pods.Items
}

// podSucceeded sets the pod's status as a kubelet does when its
// container ended with exit status 0.
func (c *apiClient) podSucceeded(t *testing.T, p corev1.Pod) {
	t.Helper()
	now := time.Now().UTC().Format(time.RFC3339)
	status := map[string]any{"status": map[string]any{
		"phase": "Succeeded",
		"containerStatuses": []any{map[string]any{
			"name": p.Spec.Containers[0].Name, "image": p.Spec.Containers[0].Image, "imageID": "", "ready": false, "restartCount": 0,
			"state": map[string]any{"terminated": map[string]any{"exitCode": 0, "reason": "Completed", "startedAt": now, "finishedAt": now}},
		}},
	}}
	body, _ := json.Marshal(status)
	code, resp, err := c.do(context.Background(), http.MethodPatch, "/api/v1/namespaces/default/pods/"+p.Name+"/status", "application/merge-patch+json", body)
	if err != nil || code != http.StatusOK {
		t.Fatalf("pod %s status: %d %v\n%s", p.Name, code, err, resp)
	}
}

// waitJobComplete waits for the Job's Complete condition with n
// succeeded pods (indexes 0 to n-1 of an Indexed Job).
func (c *apiClient) waitJobComplete(ctx context.Context, t *testing.T, job string, n int, indexed bool) {
	t.Helper()
	poll(ctx, t, "the Job completes", func() (bool, string) {
		var j batchv1.Job
		code, resp, err := c.do(ctx, http.MethodGet, "/apis/batch/v1/namespaces/default/jobs/"+job, "", nil)
		if err != nil || code != http.StatusOK || json.Unmarshal(resp, &j) != nil {
			return false, fmt.Sprintf("%d %v", code, err)
		}
		for _, cond := range j.Status.Conditions {
			if cond.Type == batchv1.JobComplete && cond.Status == corev1.ConditionTrue {
				return j.Status.Succeeded == int32(n) && (!indexed || j.Status.CompletedIndexes == "0-"+strconv.Itoa(n-1)), fmt.Sprintf("%+v", j.Status)
			}
		}
		return false, fmt.Sprintf("%+v", j.Status)
	})
}

// freePort is a loopback port free when asked.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startServerProc starts a server binary for the test's life; its output goes
// to a log file shown when the test fails.
func startServerProc(t *testing.T, name string, argv ...string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	waited := make(chan struct{})
	stopping := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(waited)
		select {
		case <-stopping:
		case procExited <- name:
		}
	}()
	t.Cleanup(func() {
		close(stopping)
		_ = cmd.Process.Kill()
		<-waited
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("%s's log (last 3000 bytes):\n%s", name, b[max(0, len(b)-3000):])
		}
	})
}

// startAPIServer starts etcd and kube-apiserver on loopback and waits
// until the server is ready.
func startAPIServer(ctx context.Context, t *testing.T, apiserver, etcd string) *apiClient {
	t.Helper()
	dir := t.TempDir()
	client, peer, secure := freePort(t), freePort(t), freePort(t)
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	startServerProc(t, "etcd", etcd, "--name=test", "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL, "--initial-cluster=test="+peerURL)
	poll(ctx, t, "etcd is healthy", func() (bool, string) {
		resp, err := http.Get(etcdURL + "/health")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyPath := filepath.Join(dir, "sa.key")
	writeFile(t, keyPath, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	token := fmt.Sprintf("%x", key.D.Bytes()[:16])
	tokens := filepath.Join(dir, "tokens.csv")
	writeFile(t, tokens, []byte(token+`,admin,admin,"system:masters"`+"\n"))
	startServerProc(t, "kube-apiserver", apiserver,
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port="+strconv.Itoa(secure),
		"--cert-dir="+filepath.Join(dir, "certs"),
		"--token-auth-file="+tokens, "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc", "--service-account-key-file="+keyPath,
		"--service-account-signing-key-file="+keyPath,
		"--service-cluster-ip-range=10.96.0.0/16", "--allow-privileged=false",
		// The endpoints of the kubernetes Service would be 127.0.0.1,
		// which the reconciler refuses: no reconciler.
		"--endpoint-reconciler-type=none")
	cl := &apiClient{
		base: "https://127.0.0.1:" + strconv.Itoa(secure), token: token, dir: dir,
		// The server's own self-signed certificate, on loopback.
		http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}},
	}
	poll(ctx, t, "kube-apiserver is ready", func() (bool, string) {
		code, resp, err := cl.do(ctx, http.MethodGet, "/readyz", "", nil)
		if err != nil {
			return false, err.Error()
		}
		return code == http.StatusOK, string(resp)
	})
	// The default namespace is made by the server's own controller.
	poll(ctx, t, "the default namespace exists", func() (bool, string) {
		code, resp, err := cl.do(ctx, http.MethodGet, "/api/v1/namespaces/default", "", nil)
		return err == nil && code == http.StatusOK, string(resp)
	})
	return cl
}

// startControllerManager runs kube-controller-manager's Job controller
// (and the service account one, which admits the pods) against cl.
func startControllerManager(ctx context.Context, t *testing.T, kcm string, cl *apiClient) {
	t.Helper()
	kubeconfig := filepath.Join(cl.dir, "kubeconfig")
	writeFile(t, kubeconfig, []byte(strings.Join([]string{
		"apiVersion: v1", "kind: Config",
		"clusters: [{name: test, cluster: {server: " + cl.base + ", insecure-skip-tls-verify: true}}]",
		"users: [{name: admin, user: {token: " + cl.token + "}}]",
		"contexts: [{name: test, context: {cluster: test, user: admin}}]",
		"current-context: test", "",
	}, "\n")))
	startServerProc(t, "kube-controller-manager", kcm, "--kubeconfig="+kubeconfig, "--controllers=job,serviceaccount",
		"--leader-elect=false", "--bind-address=127.0.0.1", "--secure-port=0", "--use-service-account-credentials=false")
	poll(ctx, t, "the default service account exists", func() (bool, string) {
		code, resp, err := cl.do(ctx, http.MethodGet, "/api/v1/namespaces/default/serviceaccounts/default", "", nil)
		return err == nil && code == http.StatusOK, string(resp)
	})
}
