package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"locksim"
)

// The recipes in recipes/ are run here as their engines would run them,
// as far as a test can reach: the YAML is parsed by a real YAML parser
// (a file GitHub or Kubernetes would refuse fails here), each step or
// container that runs locksim runs locally with the environment the engine
// would give it (the matrix job's, the pod's completion index) and a
// smaller RUNS, files are handed from job to job as the artifacts and the
// volume hand them, and the merged summary is compared with the unsharded
// check's. What cannot run here (checkout, setup-go, go test, kubectl, the
// image) is checked to be what the recipe says and no more.

// smallRuns replaces the recipes' RUNS: the same campaign, 400 runs.
const smallRuns = "400"

// breaks is a campaign that finds a violation, to run the recipes' failure
// paths (exit 1, the saved case, the HTML report).
const breaks = "--design set-px-lua"

// needShells skips a test that runs the recipes' scripts where there is
// no bash or sh to run them (or with -short: it builds the CLI).
func needShells(t *testing.T) {
	t.Helper()
	for _, s := range []string{"bash", "sh"} {
		if _, err := exec.LookPath(s); err != nil {
			t.Skipf("no %s to run the recipes' scripts", s)
		}
	}
}

// sh runs a script as `shell... script` in dir with env; it returns the
// exit code and the combined output.
func sh(t *testing.T, shell []string, script, dir string, env []string) (int, string) {
	t.Helper()
	cmd := exec.Command(shell[0], append(shell[1:], script)...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatalf("%v: %v", shell, err)
	}
	return 0, string(out)
}

// runsLocksim reports whether a script has a line that starts locksim.
func runsLocksim(script string) bool {
	for _, l := range strings.Split(script, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "locksim ") {
			return true
		}
	}
	return false
}

// unsharded is what `locksim check` prints for the campaign, unsharded:
// what a merge must print.
func unsharded(t *testing.T, bin, checkFlags string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, append(append([]string{"check"}, append(strings.Fields(checkFlags), "--runs", smallRuns, "--progress=false")...), args...)...)
	cmd.Dir, cmd.Env = t.TempDir(), shardEnv()
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return code, out.String()
}

// ghStep, ghJob and ghWorkflow are the parts of a GitHub Actions workflow
// the test reads.
type ghStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	If   string            `yaml:"if"`
	Env  map[string]string `yaml:"env"`
	With map[string]any    `yaml:"with"`
}

type ghJob struct {
	Needs    any    `yaml:"needs"`
	If       string `yaml:"if"`
	Strategy struct {
		FailFast *bool            `yaml:"fail-fast"`
		Matrix   map[string][]any `yaml:"matrix"`
	} `yaml:"strategy"`
	Env   map[string]string `yaml:"env"`
	Steps []ghStep          `yaml:"steps"`
}

type ghWorkflow struct {
	Defaults struct {
		Run struct {
			Shell string `yaml:"shell"`
		} `yaml:"run"`
	} `yaml:"defaults"`
	Env  map[string]string `yaml:"env"`
	Jobs map[string]ghJob  `yaml:"jobs"`
}

func readYAML(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "recipes", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("recipes/%s does not parse: %v", name, err)
	}
}

var ghExpr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// ghRunner runs a workflow's jobs locally, as GitHub would run its run
// steps (bash -eo pipefail in the job's workspace) with the workflow's,
// job's and step's env, its artifacts kept in a directory.
type ghRunner struct {
	t         *testing.T
	wf        ghWorkflow
	bin       string
	overrides map[string]string // env the test changes (RUNS, CHECK_FLAGS)
	artifacts string            // artifact name -> directory of its files
}

// ghJobRun is one job instance (one matrix entry).
type ghJobRun struct {
	workspace, temp, summary string
	exprs                    map[string]string
	failed                   bool
	code                     int // the exit code of the last locksim step
}

func (g *ghRunner) expand(j *ghJobRun, s string) string {
	return ghExpr.ReplaceAllStringFunc(s, func(m string) string {
		e := ghExpr.FindStringSubmatch(m)[1]
		v, ok := j.exprs[e]
		if !ok {
			g.t.Fatalf("the workflow uses ${{ %s }}, which the test cannot evaluate", e)
		}
		return v
	})
}

// env is the process environment of a step.
func (g *ghRunner) env(j *ghJobRun, job ghJob, st ghStep) []string {
	vars := map[string]string{}
	for _, m := range []map[string]string{g.wf.Env, job.Env, st.Env} {
		for k, v := range m {
			vars[k] = g.expand(j, v)
		}
	}
	for k, v := range g.overrides {
		vars[k] = v
	}
	env := shardEnv("PATH="+filepath.Join(j.temp, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"RUNNER_TEMP="+j.temp, "GITHUB_WORKSPACE="+j.workspace, "GITHUB_STEP_SUMMARY="+j.summary, "GITHUB_PATH="+filepath.Join(j.temp, "path"))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, k+"="+vars[k])
	}
	return env
}

// buildStep is the one step that builds the CLI; the test builds it once
// and puts it where the step would.
const buildStep = "go build -o \"$RUNNER_TEMP/bin/locksim\" ./cmd/locksim\necho \"$RUNNER_TEMP/bin\" >> \"$GITHUB_PATH\"\n"

// run runs one job instance: its steps in order, as GitHub would.
func (g *ghRunner) run(name string, exprs map[string]string) *ghJobRun {
	t := g.t
	job := g.wf.Jobs[name]
	j := &ghJobRun{workspace: t.TempDir(), temp: t.TempDir(), exprs: exprs}
	j.summary = filepath.Join(j.temp, "step-summary.md")
	j.exprs["runner.temp"] = j.temp
	for _, st := range job.Steps {
		if (st.If == "failure()") != j.failed {
			continue // after a failed step only failure() steps run, and only then
		}
		switch {
		case st.Uses == "actions/checkout@v4" || st.Uses == "actions/setup-go@v5":
			// The repository and Go: what the test already runs in.
		case st.Uses == "actions/upload-artifact@v4":
			g.upload(j, st)
		case st.Uses == "actions/download-artifact@v4":
			g.download(j, st)
		case st.Run == buildStep:
			os.MkdirAll(filepath.Join(j.temp, "bin"), 0o755)
			b, _ := os.ReadFile(g.bin)
			os.WriteFile(filepath.Join(j.temp, "bin", "locksim"), b, 0o755)
		case runsLocksim(st.Run):
			code, out := sh(t, []string{"bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"}, st.Run, j.workspace, g.env(j, job, st))
			t.Logf("%s / %s: exit %d\n%s", name, st.Name, code, out)
			j.code = code
			j.failed = code != 0
		default:
			t.Fatalf("job %s, step %q: the test does not know how to run it (uses %q, run %q)", name, st.Name, st.Uses, st.Run)
		}
	}
	return j
}

func (g *ghRunner) lines(j *ghJobRun, v any) []string {
	var out []string
	for _, l := range strings.Split(g.expand(j, fmt.Sprint(v)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// upload keeps the files the step names under its artifact name.
func (g *ghRunner) upload(j *ghJobRun, st ghStep) {
	t := g.t
	name := g.expand(j, fmt.Sprint(st.With["name"]))
	dst := filepath.Join(g.artifacts, name)
	os.MkdirAll(dst, 0o755)
	for _, p := range g.lines(j, st.With["path"]) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(j.workspace, p)
		}
		files, _ := filepath.Glob(p)
		if len(files) == 0 && st.With["if-no-files-found"] != "ignore" {
			t.Errorf("upload %s: nothing matches %s", name, p)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644)
		}
	}
}

// download copies the files of the artifacts its pattern matches into its
// path, all in one directory (merge-multiple).
func (g *ghRunner) download(j *ghJobRun, st ghStep) {
	t := g.t
	if st.With["merge-multiple"] != true {
		t.Fatalf("download without merge-multiple: the shards' files would land in one directory each")
	}
	dst := filepath.Join(j.workspace, fmt.Sprint(st.With["path"]))
	os.MkdirAll(dst, 0o755)
	names, _ := os.ReadDir(g.artifacts)
	for _, a := range names {
		if ok, _ := path.Match(fmt.Sprint(st.With["pattern"]), a.Name()); !ok {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(g.artifacts, a.Name()))
		for _, f := range files {
			b, _ := os.ReadFile(filepath.Join(g.artifacts, a.Name(), f.Name()))
			os.WriteFile(filepath.Join(dst, f.Name()), b, 0o644)
		}
	}
}

// The GitHub Actions recipe: its campaign runs over the matrix, each shard
// passing whether or not it finds a violation; the merge job's step exits
// as the unsharded check does, writes the unsharded check's markdown to the
// job summary, and on a failure leaves the saved case and the HTML report
// the last step uploads. The property job's upload covers the directories
// locksim.Check and rapid write.
func TestRecipeGitHubActions(t *testing.T) {
	needShells(t)
	var wf ghWorkflow
	readYAML(t, "github-actions.yml", &wf)
	if wf.Defaults.Run.Shell != "bash" {
		t.Errorf("defaults.run.shell = %q: the steps use bash (-eo pipefail)", wf.Defaults.Run.Shell)
	}
	for _, name := range []string{"properties", "campaign", "merge"} {
		if _, ok := wf.Jobs[name]; !ok {
			t.Fatalf("no job %q", name)
		}
	}
	props := wf.Jobs["properties"]
	var tested bool
	reportDir := ""
	for _, st := range props.Steps {
		if st.Run != "" {
			tested = st.Run == "go test ./..."
			if !tested {
				t.Errorf("properties: a command the test does not know: %q", st.Run)
			}
			reportDir = st.Env[locksim.ReportDirEnv]
		}
		if st.Uses == "actions/upload-artifact@v4" {
			paths := fmt.Sprint(st.With["path"])
			for _, want := range []string{"**/testdata/locksim/", "**/testdata/rapid/", reportDir + "/"} {
				if !strings.Contains(paths, want) {
					t.Errorf("properties: the upload does not include %s (paths %q)", want, paths)
				}
			}
			if st.If != "failure()" {
				t.Errorf("properties: the upload runs if %q, want failure()", st.If)
			}
		}
	}
	if !tested || reportDir == "" {
		t.Errorf("properties: no go test step, or no %s", locksim.ReportDirEnv)
	}
	camp := wf.Jobs["campaign"]
	shards := camp.Strategy.Matrix["shard"]
	if len(shards) < 2 || camp.Strategy.FailFast == nil || *camp.Strategy.FailFast {
		t.Fatalf("campaign: matrix %v, fail-fast %v: want several shards and fail-fast false", shards, camp.Strategy.FailFast)
	}
	if needs := fmt.Sprint(wf.Jobs["merge"].Needs); needs != "campaign" {
		t.Errorf("merge needs %q, want campaign", needs)
	}
	bin := buildCLI(t)
	for _, tc := range []struct {
		name       string
		checkFlags string
		code       int
	}{{"as written", wf.Env["CHECK_FLAGS"], exitSafe}, {"a design that breaks", breaks, exitViolation}} {
		t.Run(tc.name, func(t *testing.T) {
			g := &ghRunner{t: t, wf: wf, bin: bin, overrides: map[string]string{"RUNS": smallRuns, "CHECK_FLAGS": tc.checkFlags}, artifacts: t.TempDir()}
			for i, v := range shards {
				j := g.run("campaign", map[string]string{"matrix.shard": fmt.Sprint(v), "strategy.job-total": strconv.Itoa(len(shards))})
				if j.failed || fmt.Sprint(v) != strconv.Itoa(i) {
					t.Fatalf("campaign shard %v failed (exit %d)", v, j.code)
				}
			}
			m := g.run("merge", map[string]string{})
			if m.code != tc.code || m.failed != (tc.code != 0) {
				t.Errorf("merge step: exit %d, want %d", m.code, tc.code)
			}
			wantCode, want := unsharded(t, bin, tc.checkFlags, "--format", "markdown")
			got, _ := os.ReadFile(filepath.Join(m.workspace, "summary.md"))
			if diff := cmp.Diff(want, string(got)); diff != "" || wantCode != tc.code {
				t.Errorf("the merged summary is not the unsharded check's (exit %d) (-check +merge):\n%s", wantCode, diff)
			}
			if js, _ := os.ReadFile(m.summary); string(js) != string(got) {
				t.Errorf("the job summary is not the markdown summary:\n%s", js)
			}
			for _, f := range []string{"locksim-failure.json", "locksim-report.html"} {
				_, err := os.Stat(filepath.Join(m.workspace, f))
				if (err == nil) != (tc.code == exitViolation) {
					t.Errorf("%s: %v after a merge that exited %d", f, err, m.code)
				}
			}
			if tc.code == exitViolation {
				uploaded, _ := os.ReadDir(filepath.Join(g.artifacts, "locksim-campaign"))
				if len(uploaded) != 3 {
					t.Errorf("the failure upload holds %d files, want the case, the report and the summary", len(uploaded))
				}
			}
		})
	}
}

// k8sDoc is the part of a Kubernetes object the test reads.
type k8sDoc struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode   string `yaml:"completionMode"`
		Completions      int    `yaml:"completions"`
		Parallelism      int    `yaml:"parallelism"`
		PodFailurePolicy struct {
			Rules []struct {
				Action      string `yaml:"action"`
				OnExitCodes *struct {
					ContainerName string `yaml:"containerName"`
					Operator      string `yaml:"operator"`
					Values        []int  `yaml:"values"`
				} `yaml:"onExitCodes"`
			} `yaml:"rules"`
		} `yaml:"podFailurePolicy"`
		Template struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name    string `yaml:"name"`
					Env     []struct{ Name, Value string }
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Mounts  []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name string `yaml:"name"`
					PVC  struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// The Kubernetes recipe: the Indexed Job's container runs once per
// completion index with JOB_COMPLETION_INDEX set, each pod succeeding
// whether or not it finds a violation; the merge Job's container then
// prints the unsharded check's text summary and exits as it does, leaving
// the case and its HTML report on the volume. The manifest's own
// consistency is checked too: the count given to --shard auto is the Job's
// completions, the results path is the volume's mount, exit code 2 fails
// the Job at once.
func TestRecipeKubernetesIndexedJob(t *testing.T) {
	needShells(t)
	b, err := os.ReadFile(filepath.Join("..", "..", "recipes", "k8s-indexed-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	jobs := map[string]k8sDoc{}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var d k8sDoc
		if err := dec.Decode(&d); err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("recipes/k8s-indexed-job.yaml does not parse: %v", err)
		}
		if d.Kind == "Job" {
			jobs[d.Metadata.Labels["locksim/step"]] = d
		}
	}
	camp, merge := jobs["campaign"], jobs["merge"]
	if camp.Spec.CompletionMode != "Indexed" || merge.Kind != "Job" {
		t.Fatalf("want an Indexed Job labelled locksim/step=campaign and a Job labelled merge; got %+v", jobs)
	}
	pod := camp.Spec.Template.Spec
	if len(pod.Containers) != 1 || len(merge.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container per Job")
	}
	env := func(c []struct{ Name, Value string }) map[string]string {
		m := map[string]string{}
		for _, e := range c {
			m[e.Name] = e.Value
		}
		return m
	}
	check, merger := pod.Containers[0], merge.Spec.Template.Spec.Containers[0]
	cenv, menv := env(check.Env), env(merger.Env)
	if n := camp.Spec.Completions; cenv[envShardCount] != strconv.Itoa(n) || n < 2 || camp.Spec.Parallelism > n {
		t.Errorf("completions %d, parallelism %d, %s=%q: the shard count must be the completions", n, camp.Spec.Parallelism, envShardCount, cenv[envShardCount])
	}
	if pod.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q: a podFailurePolicy needs Never", pod.RestartPolicy)
	}
	failsOn2 := false
	for _, r := range camp.Spec.PodFailurePolicy.Rules {
		if oc := r.OnExitCodes; oc != nil && r.Action == "FailJob" && oc.ContainerName == check.Name && oc.Operator == "In" && slices.Contains(oc.Values, exitUsage) {
			failsOn2 = true
		}
	}
	if !failsOn2 {
		t.Errorf("no podFailurePolicy rule fails the Job on exit code 2 of container %q", check.Name)
	}
	for _, c := range []struct {
		env    map[string]string
		mounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
		}
	}{{cenv, check.Mounts}, {menv, merger.Mounts}} {
		if len(c.mounts) != 1 || c.mounts[0].MountPath != c.env["RESULTS"] {
			t.Errorf("RESULTS=%q is not the volume's mount %+v", c.env["RESULTS"], c.mounts)
		}
	}
	if a, b := pod.Volumes, merge.Spec.Template.Spec.Volumes; len(a) != 1 || len(b) != 1 || a[0].PVC.ClaimName != b[0].PVC.ClaimName {
		t.Errorf("the Jobs do not share one volume claim: %+v %+v", a, b)
	}
	bin := buildCLI(t)
	binDir := filepath.Dir(bin)
	// container runs a container's command and args as Kubernetes does,
	// with its env, RESULTS pointed at results and the test's overrides.
	container := func(cmdArgs []string, cenv map[string]string, results string, extra ...string) (int, string) {
		env := shardEnv(append(extra, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))...)
		for _, k := range slices.Sorted(maps.Keys(cenv)) {
			env = append(env, k+"="+cenv[k])
		}
		env = append(env, "RESULTS="+results)
		if len(cmdArgs) != 3 || cmdArgs[0] != "sh" || cmdArgs[1] != "-c" {
			t.Fatalf("container command %q: want sh -c SCRIPT", cmdArgs)
		}
		return sh(t, cmdArgs[:2], cmdArgs[2], t.TempDir(), env)
	}
	if cenv["CAMPAIGN"] == "" || cenv["CAMPAIGN"] != menv["CAMPAIGN"] {
		t.Fatalf("CAMPAIGN %q in the campaign Job, %q in the merge Job: want one campaign ID in both", cenv["CAMPAIGN"], menv["CAMPAIGN"])
	}
	// One volume, reused: a campaign that breaks, then one that holds. The
	// second merge reads only its own campaign's shards and never replays
	// the first's case, nor a case an earlier merge of its own left.
	volume := t.TempDir()
	for _, tc := range []struct {
		name, campaign string
		checkFlags     string
		code           int
	}{{"a design that breaks", "c1", breaks, exitViolation}, {"as written", "c2", cenv["CHECK_FLAGS"], exitSafe}} {
		t.Run(tc.name, func(t *testing.T) {
			results := filepath.Join(volume, tc.campaign)
			ce, me := maps.Clone(cenv), maps.Clone(menv)
			ce["RUNS"], ce["CHECK_FLAGS"], ce["CAMPAIGN"], me["CAMPAIGN"] = smallRuns, tc.checkFlags, tc.campaign, tc.campaign
			for i := range camp.Spec.Completions {
				code, out := container(append(check.Command, check.Args...), ce, volume, fmt.Sprintf("%s=%d", envJobIndex, i))
				if code != 0 || !strings.Contains(out, fmt.Sprintf("shard %d/%d (JOB_COMPLETION_INDEX=%d, LOCKSIM_SHARD_COUNT=%d)", i, camp.Spec.Completions, i, camp.Spec.Completions)) {
					t.Fatalf("pod %d: exit %d\n%s", i, code, out)
				}
			}
			save := filepath.Join(results, "locksim-failure.json")
			wantCode, want := unsharded(t, bin, tc.checkFlags, "--save", save)
			os.Remove(save)
			if tc.code == exitSafe {
				// A case an earlier merge left (a retried merge Job).
				b, _ := os.ReadFile(filepath.Join(volume, "c1", "locksim-failure.json"))
				os.WriteFile(save, b, 0o644)
			}
			code, out := container(append(merger.Command, merger.Args...), me, volume)
			t.Logf("merge pod: exit %d\n%s", code, out)
			if code != tc.code || wantCode != tc.code {
				t.Errorf("merge pod exit %d, unsharded check exit %d, want %d", code, wantCode, tc.code)
			}
			got, _ := os.ReadFile(filepath.Join(results, "summary.txt"))
			if diff := cmp.Diff(want, string(got)); diff != "" {
				t.Errorf("the merged summary is not the unsharded check's (-check +merge):\n%s", diff)
			}
			if !strings.Contains(out, want) {
				t.Errorf("the merge pod's log does not show the summary")
			}
			for _, f := range []string{"locksim-failure.json", "locksim-report.html"} {
				if _, err := os.Stat(filepath.Join(results, f)); (err == nil) != (tc.code == exitViolation) {
					t.Errorf("%s: %v after a merge that exited %d", f, err, code)
				}
			}
		})
	}
}
