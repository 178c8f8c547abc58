package kube

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// ErrTooLarge is returned by New when the tape and files exceed the
// ConfigMap limit and no TapeClaim is given.
var ErrTooLarge = errors.New("kube: too large for a ConfigMap")

// File is a file the shards read, carried by the ConfigMap: Key is its
// name in TapeDir (letters, digits, '-', '_', '.'), Data its bytes.
type File struct {
	Key  string
	Data []byte
}

// Manifests are the objects of one sharded replay. Secret, Service and
// Coordinator are nil without a coordinator (or Secret with TokenSecret);
// ConfigMap is nil when a TapeClaim carries the tape and there are no
// other files.
type Manifests struct {
	Secret      *corev1.Secret
	ConfigMap   *corev1.ConfigMap
	Service     *corev1.Service
	Coordinator *batchv1.Job
	Shards      *batchv1.Job
}

// Objects are the manifests in the order to apply them: what a pod
// mounts or reads before the pods.
func (m *Manifests) Objects() []runtime.Object {
	var out []runtime.Object
	if m.Secret != nil {
		out = append(out, m.Secret)
	}
	if m.ConfigMap != nil {
		out = append(out, m.ConfigMap)
	}
	if m.Service != nil {
		out = append(out, m.Service)
	}
	if m.Coordinator != nil {
		out = append(out, m.Coordinator)
	}
	return append(out, m.Shards)
}

// New renders the manifests of a replay in shards pods of image, named
// name (the shards' Job; the coordinator's objects add "-coordinator").
// tape is the tape, its Key its file name in the pod (in FilesDir, or in
// TapeDir with a TapeClaim). The shards run `replayctl run` with their
// index (--shard), the coordinator's URL, runFlags (files they name must
// be in FilesDir, given by Files), the tape, and, after "--", command
// when it is not empty. The objects returned have passed Validate.
func New(name, image string, shards int, tape File, runFlags, command []string, opts ...Option) (*Manifests, error) {
	s := defaults()
	for _, o := range opts {
		o(&s)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	switch {
	case shards < 1 || shards > MaxShards:
		return nil, fmt.Errorf("shards %d: want 1 to %d", shards, MaxShards)
	case image == "":
		return nil, errors.New("no image: give the replayctl image the pods run, e.g. ghcr.io/you/replayctl:v1 (built from the Dockerfile)")
	}
	// The coordinator's Service is NAME-coordinator: a DNS-1035 label
	// (a letter first).
	if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
		return nil, fmt.Errorf("name %q: %v", name, errs)
	}
	// A shard's pod host name is NAME-INDEX, and the coordinator's objects
	// are NAME-coordinator: both must be DNS labels.
	if longest := name + "-coordinator"; len(longest) > validation.DNS1123LabelMaxLength {
		return nil, fmt.Errorf("name %q: at most %d characters (the coordinator's objects are %s)", name, validation.DNS1123LabelMaxLength-len("-coordinator"), longest)
	}
	if s.namespace != "" {
		if errs := validation.IsDNS1123Label(s.namespace); len(errs) > 0 {
			return nil, fmt.Errorf("namespace %q: %v", s.namespace, errs)
		}
	}
	r := renderer{s: s, name: name, image: image, shards: shards}
	var err error
	if r.shardRes, err = resources(s.cpu, s.memory, s.cpuLimit, s.memoryLimit); err != nil {
		return nil, fmt.Errorf("shard resources: %w", err)
	}
	coordLimit := ""
	if s.coordMemory != "" {
		q, err := resource.ParseQuantity(s.coordMemory)
		if err != nil {
			return nil, fmt.Errorf("coordinator memory %q: %w", s.coordMemory, err)
		}
		q.Add(q) // the limit: twice the request
		coordLimit = q.String()
	}
	if r.coordRes, err = resources(s.coordCPU, s.coordMemory, "", coordLimit); err != nil {
		return nil, fmt.Errorf("coordinator resources: %w", err)
	}
	m := &Manifests{}
	if m.ConfigMap, err = r.configMap(tape); err != nil {
		return nil, err
	}
	if !s.noCoordinator {
		if s.tokenSecret == "" {
			if m.Secret, err = r.secret(); err != nil {
				return nil, err
			}
		}
		m.Service = r.service()
		m.Coordinator = r.coordinator()
	}
	m.Shards = r.shardJob(m.ConfigMap, tape, runFlags, command)
	if err := Validate(m); err != nil {
		return nil, fmt.Errorf("the rendered manifests are not valid (a bug in replayctl): %w", err)
	}
	return m, nil
}

// renderer builds the objects of one New.
type renderer struct {
	s        settings
	name     string
	image    string
	shards   int
	shardRes corev1.ResourceRequirements
	coordRes corev1.ResourceRequirements
}

func (r *renderer) coordName() string { return r.name + "-coordinator" }

func (r *renderer) tokenSecretName() string {
	if r.s.tokenSecret != "" {
		return r.s.tokenSecret
	}
	return r.name + "-token"
}

// labels are the labels of the objects (and pods) of one component.
func (r *renderer) labels(component string) map[string]string {
	return map[string]string{LabelName: "replayctl", LabelInstance: r.name, LabelComponent: component}
}

func (r *renderer) meta(name, component string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: r.s.namespace, Labels: r.labels(component)}
}

// resources parses the quantities; "" leaves one out.
func resources(cpu, memory, cpuLimit, memoryLimit string) (corev1.ResourceRequirements, error) {
	var rr corev1.ResourceRequirements
	add := func(list *corev1.ResourceList, name corev1.ResourceName, v, what string) error {
		if v == "" {
			return nil
		}
		q, err := resource.ParseQuantity(v)
		if err != nil || q.Sign() <= 0 {
			return fmt.Errorf("%s %q: want a positive Kubernetes quantity, e.g. 500m or 1 (CPU), 256Mi or 1Gi (memory)", what, v)
		}
		if *list == nil {
			*list = corev1.ResourceList{}
		}
		(*list)[name] = q
		return nil
	}
	for _, e := range []error{
		add(&rr.Requests, corev1.ResourceCPU, cpu, "cpu"),
		add(&rr.Requests, corev1.ResourceMemory, memory, "memory"),
		add(&rr.Limits, corev1.ResourceCPU, cpuLimit, "cpu limit"),
		add(&rr.Limits, corev1.ResourceMemory, memoryLimit, "memory limit"),
	} {
		if e != nil {
			return rr, e
		}
	}
	for name, lim := range rr.Limits {
		if req, ok := rr.Requests[name]; ok && req.Cmp(lim) > 0 {
			return rr, fmt.Errorf("%s request %s is over its limit %s", name, req.String(), lim.String())
		}
	}
	return rr, nil
}

// configMap carries the tape (unless a claim does) and the files, or nil
// when there is nothing to carry.
func (r *renderer) configMap(tape File) (*corev1.ConfigMap, error) {
	files := r.s.files
	if r.s.tapeClaim == "" {
		files = append([]File{tape}, files...)
	}
	if len(files) == 0 {
		return nil, nil
	}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: r.meta(r.name+"-tape", ComponentShard),
	}
	total := 0
	seen := map[string]bool{}
	for _, f := range files {
		if errs := validation.IsConfigMapKey(f.Key); len(errs) > 0 {
			return nil, fmt.Errorf("file name %q in the ConfigMap: %v", f.Key, errs)
		}
		if seen[f.Key] {
			return nil, fmt.Errorf("file name %q twice in the ConfigMap", f.Key)
		}
		seen[f.Key] = true
		total += len(f.Data)
		if utf8.Valid(f.Data) { // byte-exact in data; anything else in binaryData
			if cm.Data == nil {
				cm.Data = map[string]string{}
			}
			cm.Data[f.Key] = string(f.Data)
		} else {
			if cm.BinaryData == nil {
				cm.BinaryData = map[string][]byte{}
			}
			cm.BinaryData[f.Key] = f.Data
		}
	}
	if total > ConfigMapLimit {
		return nil, fmt.Errorf("%w: the tape and files are %d bytes, a ConfigMap holds at most %d (1 MiB): copy the tape to a PersistentVolumeClaim (at its root, as %s) and name the claim (--tape-claim)", ErrTooLarge, total, ConfigMapLimit, tape.Key)
	}
	return cm, nil
}

func (r *renderer) secret() (*corev1.Secret, error) {
	token := r.s.token
	if token == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("coordinator token: %w", err)
		}
		token = hex.EncodeToString(b)
	}
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: r.meta(r.tokenSecretName(), ComponentCoord),
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{TokenKey: []byte(token)},
	}, nil
}

func (r *renderer) service() *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: r.meta(r.coordName(), ComponentCoord),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: r.labels(ComponentCoord),
			Ports: []corev1.ServicePort{{
				Name: "http", Protocol: corev1.ProtocolTCP,
				Port: int32(r.s.port), TargetPort: intstr.FromString("http"),
			}},
		},
	}
}

// CoordinatorURL is the URL shards reach the coordinator at: its Service.
func (r *renderer) coordinatorURL() string {
	host := r.coordName()
	if r.s.namespace != "" {
		host += "." + r.s.namespace + ".svc"
	}
	return "http://" + host + ":" + strconv.Itoa(r.s.port)
}

func (r *renderer) tokenEnv() corev1.EnvVar {
	return corev1.EnvVar{Name: EnvToken, ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: r.tokenSecretName()},
			Key:                  TokenKey,
		},
	}}
}

func (r *renderer) coordinator() *batchv1.Job {
	args := []string{
		CoordinateCommand,
		FlagCoordShards + "=" + strconv.Itoa(r.shards),
		FlagCoordListen + "=0.0.0.0:" + strconv.Itoa(r.s.port),
		FlagCoordReport + "=" + path.Join(ReportDir, ReportFile),
		FlagCoordOutput + "=json",
	}
	for _, t := range r.s.thresholds {
		args = append(args, FlagCoordThresholds+"="+t)
	}
	args = append(args, r.s.coordArgs...)
	c := r.container(ComponentCoord, args, r.coordRes)
	c.Env = append(c.Env, r.tokenEnv())
	c.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: int32(r.s.port), Protocol: corev1.ProtocolTCP}}
	c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
		TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("http")},
	}}
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "reports", MountPath: ReportDir})
	pod := r.pod(ComponentCoord, c, r.reportsVolume())
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: r.meta(r.coordName(), ComponentCoord),
		Spec: batchv1.JobSpec{
			Completions:  ptr(int32(1)),
			Parallelism:  ptr(int32(1)),
			BackoffLimit: ptr(int32(0)), // a second coordinator knows nothing of the first's shards
			Template:     pod,
		},
	}
}

func (r *renderer) shardJob(cm *corev1.ConfigMap, tape File, runFlags, command []string) *batchv1.Job {
	n := strconv.Itoa(r.shards)
	args := []string{"run", FlagShard + "=$(" + EnvShardIndex + ")/" + n}
	if !r.s.noCoordinator {
		args = append(args, FlagCoordinator+"="+r.coordinatorURL())
		if !slices.ContainsFunc(runFlags, func(a string) bool { return strings.HasPrefix(a, FlagCoordinatorWait+"=") }) {
			args = append(args, FlagCoordinatorWait+"="+DefaultCoordinatorWait.String())
		}
	} else if r.s.reportClaim != "" {
		args = append(args, "--report="+path.Join(ReportDir, "shard-$("+EnvShardIndex+")-of-"+n+".json"))
	}
	args = append(args, runFlags...)
	args = append(args, r.tapePath(tape))
	if len(command) > 0 {
		args = append(append(args, "--"), command...)
	}
	c := r.container(ComponentShard, args, r.shardRes)
	c.Env = append([]corev1.EnvVar{{Name: EnvShardIndex, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']"},
	}}}, c.Env...)
	if !r.s.noCoordinator {
		c.Env = append(c.Env, r.tokenEnv())
	}
	vols, mounts := r.inputs(cm)
	c.VolumeMounts = append(c.VolumeMounts, mounts...)
	if r.s.noCoordinator && r.s.reportClaim != "" {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "reports", MountPath: ReportDir})
		vols = append(vols, r.reportsVolume())
	}
	pod := r.pod(ComponentShard, c, vols...)
	pod.Spec.Affinity = r.affinity()
	count := int32(r.shards)
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: r.meta(r.name, ComponentShard),
		Spec: batchv1.JobSpec{
			CompletionMode:       ptr(batchv1.IndexedCompletion),
			Completions:          &count,
			Parallelism:          &count,
			BackoffLimitPerIndex: ptr(int32(r.s.retries)),
			// A replacement starts once the pod it replaces is gone: two
			// pods of one shard never replay at once.
			PodReplacementPolicy: ptr(batchv1.Failed),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				// Bad input fails on every try.
				{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: ptr(ComponentShard), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{2},
				}},
				// The shard ran and a check failed: its report says so;
				// a second try would send its requests twice.
				{Action: batchv1.PodFailurePolicyActionFailIndex, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: ptr(ComponentShard), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{1},
				}},
				// An eviction or preemption is not the shard's failure.
				{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{
					Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
				}}},
			}},
			Template: pod,
		},
	}
}

// container is a replayctl container of the image, non-root with a
// read-only root file system and a scratch TMPDIR.
func (r *renderer) container(name string, args []string, res corev1.ResourceRequirements) corev1.Container {
	return corev1.Container{
		Name:       name,
		Image:      r.image,
		Command:    []string{Entrypoint},
		Args:       args,
		WorkingDir: WorkDir,
		Env:        []corev1.EnvVar{{Name: "TMPDIR", Value: TmpDir}},
		Resources:  res,
		VolumeMounts: []corev1.VolumeMount{
			{Name: "tmp", MountPath: TmpDir},
		},
		SecurityContext: &corev1.SecurityContext{
			RunAsNonRoot:             ptr(true),
			RunAsUser:                ptr(int64(UID)),
			RunAsGroup:               ptr(int64(GID)),
			AllowPrivilegeEscalation: ptr(false),
			ReadOnlyRootFilesystem:   ptr(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
}

func (r *renderer) pod(component string, c corev1.Container, vols ...corev1.Volume) corev1.PodTemplateSpec {
	vols = append([]corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}, vols...)
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: r.labels(component)},
		Spec: corev1.PodSpec{
			RestartPolicy:                corev1.RestartPolicyNever,
			AutomountServiceAccountToken: ptr(false), // replayctl calls no Kubernetes API
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot:   ptr(true),
				RunAsUser:      ptr(int64(UID)),
				RunAsGroup:     ptr(int64(GID)),
				FSGroup:        ptr(int64(GID)),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{c},
			Volumes:    vols,
		},
	}
}

// tapePath is the tape's path in a shard pod.
func (r *renderer) tapePath(tape File) string {
	if r.s.tapeClaim != "" {
		return path.Join(TapeDir, tape.Key)
	}
	return path.Join(FilesDir, tape.Key)
}

// inputs are the volumes and mounts of what a shard reads: the
// ConfigMap in FilesDir and, with a TapeClaim, the claim in TapeDir.
func (r *renderer) inputs(cm *corev1.ConfigMap) ([]corev1.Volume, []corev1.VolumeMount) {
	var vols []corev1.Volume
	var mounts []corev1.VolumeMount
	if cm != nil {
		vols = append(vols, corev1.Volume{Name: "files", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name},
		}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "files", MountPath: FilesDir, ReadOnly: true})
	}
	if r.s.tapeClaim != "" {
		vols = append(vols, corev1.Volume{Name: "tape", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: r.s.tapeClaim, ReadOnly: true},
		}})
		mounts = append(mounts, corev1.VolumeMount{Name: "tape", MountPath: TapeDir, ReadOnly: true})
	}
	return vols, mounts
}

func (r *renderer) reportsVolume() corev1.Volume {
	if r.s.reportClaim != "" {
		return corev1.Volume{Name: "reports", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: r.s.reportClaim},
		}}
	}
	return corev1.Volume{Name: "reports", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
}

// affinity keeps shards of one run off each other's nodes.
func (r *renderer) affinity() *corev1.Affinity {
	term := corev1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{
			LabelInstance: r.name, LabelComponent: ComponentShard,
		}},
		TopologyKey: corev1.LabelHostname,
	}
	switch r.s.antiAffinity {
	case "required":
		return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term},
		}}
	case "preferred":
		return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: term}},
		}}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
