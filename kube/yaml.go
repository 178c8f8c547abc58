package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// separator is the line between two YAML documents.
const separator = "---\n"

// WriteYAML writes the objects as one multi-document YAML stream, each
// checked first to decode strictly back into its own type as it was.
func WriteYAML(w io.Writer, objs []runtime.Object) error {
	var buf bytes.Buffer
	for _, o := range objs {
		doc, err := marshal(o)
		if err != nil {
			return err
		}
		back, err := decodeOne(doc)
		if err != nil {
			return fmt.Errorf("kube: %s does not decode back (a bug in replayctl): %w", kindName(o), err)
		}
		if !equality.Semantic.DeepEqual(back, o) {
			return fmt.Errorf("kube: %s decodes back different (a bug in replayctl)", kindName(o))
		}
		buf.WriteString(separator)
		buf.Write(doc)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// marshal is o's YAML without the fields a new object leaves empty
// (status, creationTimestamp), which the API server sets.
func marshal(o runtime.Object) ([]byte, error) {
	j, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	prune(m)
	return yaml.Marshal(m)
}

// prune drops a status of empty values ("status": {}, a Service's
// "status": {"loadBalancer": {}}) and "creationTimestamp": null at any
// depth.
func prune(v any) {
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v["status"].(map[string]any); ok && emptyValues(s) {
			delete(v, "status")
		}
		if ts, ok := v["creationTimestamp"]; ok && ts == nil {
			delete(v, "creationTimestamp")
		}
		for _, e := range v {
			prune(e)
		}
	case []any:
		for _, e := range v {
			prune(e)
		}
	}
}

// Decode reads a multi-document YAML stream of the kinds New renders,
// strictly: an unknown field, a duplicate field or a kind other than
// ConfigMap, Secret, Service and Job is an error.
func Decode(data []byte) ([]runtime.Object, error) {
	var out []runtime.Object
	for i, doc := range bytes.Split(append([]byte("\n"), data...), []byte("\n"+separator)) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		o, err := decodeOne(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		out = append(out, o)
	}
	return out, nil
}

func decodeOne(doc []byte) (runtime.Object, error) {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, err
	}
	var o runtime.Object
	switch tm.APIVersion + " " + tm.Kind {
	case "v1 ConfigMap":
		o = &corev1.ConfigMap{}
	case "v1 Secret":
		o = &corev1.Secret{}
	case "v1 Service":
		o = &corev1.Service{}
	case "batch/v1 Job":
		o = &batchv1.Job{}
	default:
		return nil, fmt.Errorf("kind %q of %q: want a ConfigMap, Secret, Service (v1) or Job (batch/v1)", tm.Kind, tm.APIVersion)
	}
	if err := yaml.UnmarshalStrict(doc, o); err != nil {
		return nil, err
	}
	return o, nil
}

func kindName(o runtime.Object) string {
	switch o := o.(type) {
	case *corev1.ConfigMap:
		return "ConfigMap " + o.Name
	case *corev1.Secret:
		return "Secret " + o.Name
	case *corev1.Service:
		return "Service " + o.Name
	case *batchv1.Job:
		return "Job " + o.Name
	}
	return fmt.Sprintf("%T", o)
}

// emptyValues says whether every value of m is an empty object.
func emptyValues(m map[string]any) bool {
	for _, v := range m {
		if e, ok := v.(map[string]any); !ok || len(e) > 0 {
			return false
		}
	}
	return true
}
