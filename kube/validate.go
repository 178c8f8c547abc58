package kube

import (
	"fmt"
	"path"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The API server's bounds these manifests meet (batch and core
// validation of Kubernetes 1.37).
const (
	maxIndexedCompletions = 100000
	maxExitCode           = 255
)

// Validate checks the manifests against the rules the API server applies
// to the fields they use (written here after k8s.io/kubernetes'
// pkg/apis/batch/validation and pkg/apis/core/validation, which cannot
// be imported as a module) and that they refer to each other rightly:
// the Service selects the coordinator's pod, the pods mount the rendered
// ConfigMap and read the token from the rendered Secret.
func Validate(m *Manifests) error {
	var errs field.ErrorList
	if m.ConfigMap != nil {
		errs = append(errs, validateConfigMap(m.ConfigMap)...)
	}
	if m.Secret != nil {
		errs = append(errs, validateMeta(&m.Secret.ObjectMeta, field.NewPath("Secret"))...)
		errs = append(errs, validateData(nil, m.Secret.Data, field.NewPath("Secret", "data"))...)
	}
	if m.Service != nil {
		errs = append(errs, validateService(m.Service)...)
	}
	if m.Coordinator != nil {
		errs = append(errs, validateJob(m.Coordinator)...)
	}
	if m.Shards == nil {
		return field.ErrorList{field.Required(field.NewPath("Job"), "the shards' Job")}.ToAggregate()
	}
	errs = append(errs, validateJob(m.Shards)...)
	errs = append(errs, validateRefs(m)...)
	return errs.ToAggregate()
}

func validateMeta(meta *metav1.ObjectMeta, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(meta.Name) {
		errs = append(errs, field.Invalid(p.Child("metadata", "name"), meta.Name, msg))
	}
	if meta.Namespace != "" {
		for _, msg := range validation.IsDNS1123Label(meta.Namespace) {
			errs = append(errs, field.Invalid(p.Child("metadata", "namespace"), meta.Namespace, msg))
		}
	}
	return append(errs, validateLabels(meta.Labels, p.Child("metadata", "labels"))...)
}

func validateLabels(l map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for k, v := range l {
		for _, msg := range validation.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(p.Key(k), v, msg))
		}
	}
	return errs
}

// validateData is the ConfigMap's and the Secret's rule: valid keys, each
// once, at most 1 MiB together.
func validateData(data map[string]string, bin map[string][]byte, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	total := 0
	for k, v := range data {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(p.Key(k), k, msg))
		}
		if _, ok := bin[k]; ok {
			errs = append(errs, field.Duplicate(p.Key(k), k))
		}
		total += len(v)
	}
	for k, v := range bin {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(p.Key(k), k, msg))
		}
		total += len(v)
	}
	if total > ConfigMapLimit {
		errs = append(errs, field.TooLong(p, "", ConfigMapLimit))
	}
	return errs
}

func validateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	p := field.NewPath("ConfigMap")
	errs := validateMeta(&cm.ObjectMeta, p)
	return append(errs, validateData(cm.Data, cm.BinaryData, p.Child("data"))...)
}

func validateService(s *corev1.Service) field.ErrorList {
	p := field.NewPath("Service")
	errs := validateMeta(&s.ObjectMeta, p)
	for _, msg := range validation.IsDNS1035Label(s.Name) { // a Service name is a DNS-1035 label
		errs = append(errs, field.Invalid(p.Child("metadata", "name"), s.Name, msg))
	}
	if len(s.Spec.Ports) == 0 {
		errs = append(errs, field.Required(p.Child("spec", "ports"), ""))
	}
	names := map[string]bool{}
	for i, port := range s.Spec.Ports {
		pp := p.Child("spec", "ports").Index(i)
		for _, msg := range validation.IsValidPortName(port.Name) {
			errs = append(errs, field.Invalid(pp.Child("name"), port.Name, msg))
		}
		if names[port.Name] {
			errs = append(errs, field.Duplicate(pp.Child("name"), port.Name))
		}
		names[port.Name] = true
		for _, msg := range validation.IsValidPortNum(int(port.Port)) {
			errs = append(errs, field.Invalid(pp.Child("port"), port.Port, msg))
		}
		if port.TargetPort.StrVal != "" {
			for _, msg := range validation.IsValidPortName(port.TargetPort.StrVal) {
				errs = append(errs, field.Invalid(pp.Child("targetPort"), port.TargetPort.StrVal, msg))
			}
		}
	}
	return append(errs, validateLabels(s.Spec.Selector, p.Child("spec", "selector"))...)
}

func validateJob(job *batchv1.Job) field.ErrorList {
	p := field.NewPath("Job[" + job.Name + "]")
	errs := validateMeta(&job.ObjectMeta, p)
	// The Job's name is a label value of its pods (job-name).
	for _, msg := range validation.IsValidLabelValue(job.Name) {
		errs = append(errs, field.Invalid(p.Child("metadata", "name"), job.Name, msg))
	}
	spec, sp := &job.Spec, p.Child("spec")
	for _, f := range []struct {
		v    *int32
		name string
	}{{spec.Parallelism, "parallelism"}, {spec.Completions, "completions"}, {spec.BackoffLimit, "backoffLimit"}, {spec.BackoffLimitPerIndex, "backoffLimitPerIndex"}} {
		if f.v != nil && *f.v < 0 {
			errs = append(errs, field.Invalid(sp.Child(f.name), *f.v, "must be greater than or equal to 0"))
		}
	}
	indexed := spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion
	if indexed {
		switch {
		case spec.Completions == nil:
			errs = append(errs, field.Required(sp.Child("completions"), "when completion mode is Indexed"))
		case *spec.Completions > maxIndexedCompletions:
			errs = append(errs, field.Invalid(sp.Child("completions"), *spec.Completions, fmt.Sprintf("must be less than or equal to %d when completion mode is Indexed", maxIndexedCompletions)))
		default:
			// A pod's host name is NAME-INDEX: a DNS label.
			host := fmt.Sprintf("%s-%d", job.Name, *spec.Completions-1)
			for _, msg := range validation.IsDNS1123Label(host) {
				errs = append(errs, field.Invalid(p.Child("metadata", "name"), job.Name, "the pod host name "+host+": "+msg))
			}
		}
		if spec.Parallelism != nil && *spec.Parallelism > maxIndexedCompletions {
			errs = append(errs, field.Invalid(sp.Child("parallelism"), *spec.Parallelism, fmt.Sprintf("must be less than or equal to %d when completion mode is Indexed", maxIndexedCompletions)))
		}
	}
	if spec.BackoffLimitPerIndex != nil && !indexed {
		errs = append(errs, field.Forbidden(sp.Child("backoffLimitPerIndex"), "requires indexed completion mode"))
	}
	if spec.Selector != nil || (spec.ManualSelector != nil && *spec.ManualSelector) {
		errs = append(errs, field.Forbidden(sp.Child("selector"), "left to the Job controller"))
	}
	tp := sp.Child("template", "spec")
	rp := spec.Template.Spec.RestartPolicy
	if rp != corev1.RestartPolicyNever && rp != corev1.RestartPolicyOnFailure {
		errs = append(errs, field.NotSupported(tp.Child("restartPolicy"), rp, []string{string(corev1.RestartPolicyOnFailure), string(corev1.RestartPolicyNever)}))
	}
	if pfp := spec.PodFailurePolicy; pfp != nil {
		errs = append(errs, validatePodFailurePolicy(spec, sp.Child("podFailurePolicy"))...)
		if spec.PodReplacementPolicy != nil && *spec.PodReplacementPolicy != batchv1.Failed {
			errs = append(errs, field.NotSupported(sp.Child("podReplacementPolicy"), *spec.PodReplacementPolicy, []string{string(batchv1.Failed)}))
		}
	}
	errs = append(errs, validateLabels(spec.Template.Labels, sp.Child("template", "metadata", "labels"))...)
	return append(errs, validatePodSpec(&spec.Template.Spec, tp)...)
}

func validatePodFailurePolicy(spec *batchv1.JobSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		errs = append(errs, field.Invalid(p, "", "only allowed when the pods' restartPolicy is Never"))
	}
	containers := map[string]bool{}
	for _, c := range spec.Template.Spec.Containers {
		containers[c.Name] = true
	}
	for i, rule := range spec.PodFailurePolicy.Rules {
		rp := p.Child("rules").Index(i)
		if (rule.OnExitCodes == nil) == (len(rule.OnPodConditions) == 0) {
			errs = append(errs, field.Invalid(rp, "", "exactly one of onExitCodes and onPodConditions is required"))
		}
		switch rule.Action {
		case batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionCount:
		case batchv1.PodFailurePolicyActionFailIndex:
			if spec.BackoffLimitPerIndex == nil {
				errs = append(errs, field.Invalid(rp.Child("action"), rule.Action, "requires backoffLimitPerIndex"))
			}
		default:
			errs = append(errs, field.NotSupported[string](rp.Child("action"), rule.Action, nil))
		}
		if ec := rule.OnExitCodes; ec != nil {
			ep := rp.Child("onExitCodes")
			if ec.ContainerName != nil && !containers[*ec.ContainerName] {
				errs = append(errs, field.Invalid(ep.Child("containerName"), *ec.ContainerName, "must be one of the container names in the pod template"))
			}
			if ec.Operator != batchv1.PodFailurePolicyOnExitCodesOpIn && ec.Operator != batchv1.PodFailurePolicyOnExitCodesOpNotIn {
				errs = append(errs, field.NotSupported[string](ep.Child("operator"), ec.Operator, nil))
			}
			if len(ec.Values) == 0 || !slices.IsSorted(ec.Values) || len(slices.Compact(slices.Clone(ec.Values))) != len(ec.Values) {
				errs = append(errs, field.Invalid(ep.Child("values"), ec.Values, "must be a non-empty, ordered set"))
			}
			for j, v := range ec.Values {
				if v < 0 || v > maxExitCode || (v == 0 && ec.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn) {
					errs = append(errs, field.Invalid(ep.Child("values").Index(j), v, "an exit code from 1 to 255 (0 is not a failure)"))
				}
			}
		}
		for j, pc := range rule.OnPodConditions {
			if pc.Status != corev1.ConditionTrue && pc.Status != corev1.ConditionFalse && pc.Status != corev1.ConditionUnknown {
				errs = append(errs, field.Invalid(rp.Child("onPodConditions").Index(j).Child("status"), pc.Status, "True, False or Unknown"))
			}
		}
	}
	return errs
}

func validatePodSpec(ps *corev1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	vols := map[string]bool{}
	for i, v := range ps.Volumes {
		vp := p.Child("volumes").Index(i)
		for _, msg := range validation.IsDNS1123Label(v.Name) {
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, msg))
		}
		if vols[v.Name] {
			errs = append(errs, field.Duplicate(vp.Child("name"), v.Name))
		}
		vols[v.Name] = true
		sources := 0
		for _, set := range []bool{v.EmptyDir != nil, v.ConfigMap != nil, v.PersistentVolumeClaim != nil, v.Secret != nil} {
			if set {
				sources++
			}
		}
		if sources != 1 {
			errs = append(errs, field.Invalid(vp, v.Name, "exactly one volume source"))
		}
	}
	if len(ps.Containers) == 0 {
		errs = append(errs, field.Required(p.Child("containers"), ""))
	}
	names := map[string]bool{}
	for i, c := range ps.Containers {
		cp := p.Child("containers").Index(i)
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(cp.Child("name"), c.Name, msg))
		}
		if names[c.Name] {
			errs = append(errs, field.Duplicate(cp.Child("name"), c.Name))
		}
		names[c.Name] = true
		if strings.TrimSpace(c.Image) == "" || c.Image != strings.TrimSpace(c.Image) {
			errs = append(errs, field.Invalid(cp.Child("image"), c.Image, "must be set, without surrounding spaces"))
		}
		errs = append(errs, validateContainer(&c, vols, cp)...)
	}
	if sc := ps.SecurityContext; sc != nil {
		for _, id := range []*int64{sc.RunAsUser, sc.RunAsGroup, sc.FSGroup} {
			if id != nil && *id < 0 {
				errs = append(errs, field.Invalid(p.Child("securityContext"), *id, "must be between 0 and 2147483647"))
			}
		}
	}
	if a := ps.Affinity; a != nil && a.PodAntiAffinity != nil {
		ap := p.Child("affinity", "podAntiAffinity")
		terms := slices.Clone(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
		for i, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			if w.Weight < 1 || w.Weight > 100 {
				errs = append(errs, field.Invalid(ap.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i).Child("weight"), w.Weight, "must be in the range 1-100"))
			}
			terms = append(terms, w.PodAffinityTerm)
		}
		for i, t := range terms {
			for _, msg := range validation.IsQualifiedName(t.TopologyKey) {
				errs = append(errs, field.Invalid(ap.Index(i).Child("topologyKey"), t.TopologyKey, msg))
			}
			if t.LabelSelector == nil {
				errs = append(errs, field.Required(ap.Index(i).Child("labelSelector"), ""))
				continue
			}
			if _, err := metav1.LabelSelectorAsSelector(t.LabelSelector); err != nil {
				errs = append(errs, field.Invalid(ap.Index(i).Child("labelSelector"), t.LabelSelector, err.Error()))
			}
		}
	}
	return errs
}

func validateContainer(c *corev1.Container, vols map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range c.Env {
		ep := p.Child("env").Index(i)
		for _, msg := range validation.IsEnvVarName(e.Name) {
			errs = append(errs, field.Invalid(ep.Child("name"), e.Name, msg))
		}
		if e.ValueFrom == nil {
			continue
		}
		vf := e.ValueFrom
		sources := 0
		for _, set := range []bool{vf.FieldRef != nil, vf.SecretKeyRef != nil, vf.ConfigMapKeyRef != nil, vf.ResourceFieldRef != nil} {
			if set {
				sources++
			}
		}
		if sources != 1 || e.Value != "" {
			errs = append(errs, field.Invalid(ep.Child("valueFrom"), "", "exactly one source, and no value"))
		}
		if fr := vf.FieldRef; fr != nil {
			key, ok := annotationKey(fr.FieldPath)
			if !ok {
				errs = append(errs, field.NotSupported(ep.Child("valueFrom", "fieldRef", "fieldPath"), fr.FieldPath, []string{"metadata.annotations['KEY']"}))
			}
			for _, msg := range validation.IsQualifiedName(key) {
				errs = append(errs, field.Invalid(ep.Child("valueFrom", "fieldRef", "fieldPath"), fr.FieldPath, msg))
			}
		}
		if sk := vf.SecretKeyRef; sk != nil {
			for _, msg := range validation.IsConfigMapKey(sk.Key) {
				errs = append(errs, field.Invalid(ep.Child("valueFrom", "secretKeyRef", "key"), sk.Key, msg))
			}
		}
	}
	paths := map[string]bool{}
	for i, m := range c.VolumeMounts {
		mp := p.Child("volumeMounts").Index(i)
		if !vols[m.Name] {
			errs = append(errs, field.NotFound(mp.Child("name"), m.Name))
		}
		if !path.IsAbs(m.MountPath) || paths[m.MountPath] {
			errs = append(errs, field.Invalid(mp.Child("mountPath"), m.MountPath, "an absolute path, mounted once"))
		}
		paths[m.MountPath] = true
	}
	ports := map[string]bool{}
	for i, port := range c.Ports {
		pp := p.Child("ports").Index(i)
		for _, msg := range validation.IsValidPortNum(int(port.ContainerPort)) {
			errs = append(errs, field.Invalid(pp.Child("containerPort"), port.ContainerPort, msg))
		}
		for _, msg := range validation.IsValidPortName(port.Name) {
			errs = append(errs, field.Invalid(pp.Child("name"), port.Name, msg))
		}
		ports[port.Name] = true
	}
	if pr := c.ReadinessProbe; pr != nil && pr.TCPSocket != nil && pr.TCPSocket.Port.StrVal != "" && !ports[pr.TCPSocket.Port.StrVal] {
		errs = append(errs, field.NotFound(p.Child("readinessProbe", "tcpSocket", "port"), pr.TCPSocket.Port.StrVal))
	}
	for name, lim := range c.Resources.Limits {
		if req, ok := c.Resources.Requests[name]; ok && req.Cmp(lim) > 0 {
			errs = append(errs, field.Invalid(p.Child("resources", "requests").Key(string(name)), req.String(), "must be less than or equal to "+string(name)+" limit of "+lim.String()))
		}
	}
	for _, l := range []corev1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
		for name, q := range l {
			if q.Sign() < 0 {
				errs = append(errs, field.Invalid(p.Child("resources").Key(string(name)), q.String(), "must be greater than or equal to 0"))
			}
		}
	}
	return errs
}

// annotationKey is KEY of "metadata.annotations['KEY']".
func annotationKey(fieldPath string) (string, bool) {
	rest, ok := strings.CutPrefix(fieldPath, "metadata.annotations['")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, "']")
}

// validateRefs checks what the objects say of each other.
func validateRefs(m *Manifests) field.ErrorList {
	var errs field.ErrorList
	if m.Service != nil {
		p := field.NewPath("Service", "spec", "selector")
		if m.Coordinator == nil || !labels.SelectorFromSet(m.Service.Spec.Selector).Matches(labels.Set(m.Coordinator.Spec.Template.Labels)) {
			errs = append(errs, field.Invalid(p, m.Service.Spec.Selector, "does not select the coordinator's pod"))
		}
		if labels.SelectorFromSet(m.Service.Spec.Selector).Matches(labels.Set(m.Shards.Spec.Template.Labels)) {
			errs = append(errs, field.Invalid(p, m.Service.Spec.Selector, "selects the shards' pods too"))
		}
	}
	for _, job := range []*batchv1.Job{m.Coordinator, m.Shards} {
		if job == nil {
			continue
		}
		p := field.NewPath("Job["+job.Name+"]", "spec", "template", "spec")
		for _, v := range job.Spec.Template.Spec.Volumes {
			if v.ConfigMap != nil && (m.ConfigMap == nil || v.ConfigMap.Name != m.ConfigMap.Name) {
				errs = append(errs, field.NotFound(p.Child("volumes").Key(v.Name), v.ConfigMap.Name))
			}
		}
		for _, c := range job.Spec.Template.Spec.Containers {
			for _, e := range c.Env {
				if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && m.Secret != nil && e.ValueFrom.SecretKeyRef.Name != m.Secret.Name {
					errs = append(errs, field.NotFound(p.Child("env").Key(e.Name), e.ValueFrom.SecretKeyRef.Name))
				}
			}
		}
	}
	return errs
}
