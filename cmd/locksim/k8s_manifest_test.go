package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// k8sObject mirrors every field recipes/k8s-indexed-job.yaml uses, with
// the API's names and types: decoding with KnownFields refuses a field the
// struct lacks, so a misspelt or misplaced field (completionmode,
// parallelism under template) fails here as the API server would refuse
// it. What no offline check reaches: the image, the storage class, the
// cluster's quotas.
type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		// PersistentVolumeClaim
		AccessModes []string `yaml:"accessModes"`
		Resources   struct {
			Requests map[string]string `yaml:"requests"`
		} `yaml:"resources"`
		// Job
		CompletionMode   string `yaml:"completionMode"`
		Completions      *int32 `yaml:"completions"`
		Parallelism      *int32 `yaml:"parallelism"`
		BackoffLimit     *int32 `yaml:"backoffLimit"`
		PodFailurePolicy *struct {
			Rules []struct {
				Action      string `yaml:"action"`
				OnExitCodes *struct {
					ContainerName string  `yaml:"containerName"`
					Operator      string  `yaml:"operator"`
					Values        []int32 `yaml:"values"`
				} `yaml:"onExitCodes"`
				OnPodConditions []struct {
					Type string `yaml:"type"`
				} `yaml:"onPodConditions"`
			} `yaml:"rules"`
		} `yaml:"podFailurePolicy"`
		Template *struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name  string `yaml:"name"`
					Image string `yaml:"image"`
					Env   []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					Command   []string `yaml:"command"`
					Args      []string `yaml:"args"`
					Resources struct {
						Requests map[string]string `yaml:"requests"`
					} `yaml:"resources"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// dns1123 is a Kubernetes object or container name (RFC 1123 label).
var dns1123 = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// quantity is a resource quantity as the manifest writes them.
var quantity = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(m|Ki|Mi|Gi|Ti|k|M|G|T)?$`)

// The Kubernetes recipe validated offline as far as a test can: every
// document parses with only the fields the API has, and the fields an
// Indexed Job needs are there and consistent (completionMode Indexed,
// completions and parallelism, restartPolicy Never for a podFailurePolicy,
// the script reading JOB_COMPLETION_INDEX, which Kubernetes sets and the
// manifest must not, each mount a volume of the pod, each claim the
// file's PersistentVolumeClaim, ReadWriteMany for pods on many nodes).
func TestRecipeKubernetesManifestIsValid(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "recipes", "k8s-indexed-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range validateK8s(b) {
		t.Error(problem)
	}
	// The check catches what it claims to: a misspelt field, a Job that is
	// not Indexed, a mount of no volume, a claim of no PVC, the index unread.
	for _, bad := range []struct{ from, to, want string }{
		{"completionMode: Indexed", "completionmode: Indexed", "field completionmode not found"},
		{"completionMode: Indexed", "completionMode: NonIndexed", "completionMode"},
		{"- name: results\n              mountPath", "- name: result\n              mountPath", `mounts "result"`},
		{"claimName: locksim-results", "claimName: locksim-result", "claims locksim-result"},
		{`shard-$JOB_COMPLETION_INDEX.json`, `shard-$INDEX.json`, "JOB_COMPLETION_INDEX"},
		{"parallelism: 16", "parallelism: 17", "parallelism"},
	} {
		edited := strings.ReplaceAll(string(b), bad.from, bad.to)
		if edited == string(b) {
			t.Fatalf("the recipe has no %q to break", bad.from)
		}
		if p := validateK8s([]byte(edited)); !strings.Contains(strings.Join(p, "\n"), bad.want) {
			t.Errorf("with %q for %q: problems %q, want one saying %q", bad.to, bad.from, p, bad.want)
		}
	}
}

// validateK8s returns what is wrong with a multi-document manifest.
func validateK8s(b []byte) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var objs []k8sObject
	for {
		var o k8sObject
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return append(problems, "does not decode as the API's fields: "+err.Error())
		}
		objs = append(objs, o)
	}
	claims := map[string]bool{}
	for _, o := range objs {
		if o.Kind == "PersistentVolumeClaim" {
			claims[o.Metadata.Name] = true
		}
	}
	indexed := 0
	for _, o := range objs {
		name := o.Kind + " " + o.Metadata.Name
		if !dns1123.MatchString(o.Metadata.Name) {
			bad("%s: metadata.name is not a DNS-1123 label", name)
		}
		switch o.Kind {
		case "PersistentVolumeClaim":
			if o.APIVersion != "v1" {
				bad("%s: apiVersion %q, want v1", name, o.APIVersion)
			}
			if !slices.Contains(o.Spec.AccessModes, "ReadWriteMany") {
				bad("%s: accessModes %v: pods on several nodes write to it at once, want ReadWriteMany", name, o.Spec.AccessModes)
			}
			if q := o.Spec.Resources.Requests["storage"]; !quantity.MatchString(q) {
				bad("%s: storage request %q is no quantity", name, q)
			}
		case "Job":
			if o.APIVersion != "batch/v1" {
				bad("%s: apiVersion %q, want batch/v1", name, o.APIVersion)
			}
			tpl := o.Spec.Template
			if tpl == nil || len(tpl.Spec.Containers) == 0 {
				bad("%s: no pod template with a container", name)
				continue
			}
			pod := tpl.Spec
			if pod.RestartPolicy != "Never" && pod.RestartPolicy != "OnFailure" {
				bad("%s: restartPolicy %q: a Job's pods want Never or OnFailure", name, pod.RestartPolicy)
			}
			if o.Spec.PodFailurePolicy != nil && pod.RestartPolicy != "Never" {
				bad("%s: a podFailurePolicy needs restartPolicy Never", name)
			}
			if o.Spec.CompletionMode != "" && o.Spec.CompletionMode != "NonIndexed" && o.Spec.CompletionMode != "Indexed" {
				bad("%s: completionMode %q", name, o.Spec.CompletionMode)
			}
			volumes := map[string]string{}
			for _, v := range pod.Volumes {
				volumes[v.Name] = v.PersistentVolumeClaim.ClaimName
				if !claims[v.PersistentVolumeClaim.ClaimName] {
					bad("%s: volume %s claims %s, which the file does not define", name, v.Name, v.PersistentVolumeClaim.ClaimName)
				}
			}
			script := ""
			for _, c := range pod.Containers {
				if !dns1123.MatchString(c.Name) || c.Image == "" {
					bad("%s: container %q needs a DNS-1123 name and an image", name, c.Name)
				}
				for _, m := range c.VolumeMounts {
					if _, ok := volumes[m.Name]; !ok || !strings.HasPrefix(m.MountPath, "/") {
						bad("%s: container %s mounts %q at %q: no such volume, or not an absolute path", name, c.Name, m.Name, m.MountPath)
					}
				}
				for _, e := range c.Env {
					if e.Name == envJobIndex {
						bad("%s: container %s sets %s, which Kubernetes sets for each pod", name, c.Name, envJobIndex)
					}
				}
				script += strings.Join(append(c.Command, c.Args...), " ")
			}
			if o.Metadata.Labels["locksim/step"] != "campaign" {
				continue
			}
			indexed++
			switch c, p := o.Spec.Completions, o.Spec.Parallelism; {
			case o.Spec.CompletionMode != "Indexed":
				bad("%s: completionMode %q: the shards need Indexed (JOB_COMPLETION_INDEX)", name, o.Spec.CompletionMode)
			case c == nil || *c < 1:
				bad("%s: an Indexed Job needs completions of at least 1", name)
			case p == nil || *p < 1 || *p > *c:
				bad("%s: parallelism %v: want 1 to completions (%d)", name, p, *c)
			}
			if !strings.Contains(script, "$"+envJobIndex) {
				bad("%s: the script does not read %s: every pod would write the same shard", name, envJobIndex)
			}
			for _, r := range o.Spec.PodFailurePolicy.Rules {
				if oc := r.OnExitCodes; oc != nil && (oc.Operator != "In" && oc.Operator != "NotIn" || len(oc.Values) == 0 || slices.Contains(oc.Values, 0) && oc.Operator == "In") {
					bad("%s: onExitCodes %+v: want operator In or NotIn and non-zero values", name, *oc)
				}
			}
		default:
			bad("%s: a kind the recipe does not use", name)
		}
	}
	if indexed != 1 {
		bad("want one Job labelled locksim/step=campaign, found %d", indexed)
	}
	return problems
}
