//go:build slurm

package main

// TestSlurmCluster runs the quickstart on a real Slurm: it needs sbatch,
// squeue, scancel and scontrol talking to a cluster whose jobs see this
// directory, e.g. the one-node cluster of scripts/slurm-local.sh:
//
//	scripts/slurm-local.sh run go test -tags slurm -run TestSlurmCluster -v -timeout 30m .

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

const quickstart = "experiments/quickstart.yaml"

// slurmCmd runs a Slurm client command and returns its output.
func slurmCmd(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// waitJobs waits until squeue lists none of the jobs.
func waitJobs(t *testing.T, timeout time.Duration, jobs ...string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out := slurmCmd(t, "squeue", "-h", "-o", "%i %T", "-j", strings.Join(jobs, ","))
		if strings.TrimSpace(out) == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs %v still queued after %v:\n%s", jobs, timeout, out)
		}
		time.Sleep(time.Second)
	}
}

// jobState returns the state scontrol reports for a job.
func jobState(t *testing.T, job string) string {
	t.Helper()
	m := regexp.MustCompile(`JobState=(\S+)`).FindStringSubmatch(slurmCmd(t, "scontrol", "show", "job", "-o", job))
	if m == nil {
		t.Fatalf("no JobState for job %s", job)
	}
	return m[1]
}

// merged returns the results stored in dir for spec's plan, timings
// cleared.
func merged(t *testing.T, dir string) []results.Result {
	t.Helper()
	sp, err := spec.ReadSpec(dir)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := spec.NewPlan(sp)
	if err != nil {
		t.Fatal(err)
	}
	rs, warns, _, err := results.ReadAllResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warns {
		t.Logf("warning: %v", w)
	}
	out := spec.ForPlan(plan, results.Latest(rs))
	for i := range out {
		out[i].FitSeconds, out[i].SelectSeconds = 0, 0
	}
	return out
}

func TestSlurmCluster(t *testing.T) {
	for _, c := range []string{"sbatch", "squeue", "scancel", "scontrol"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Fatalf("%s not found: run under a Slurm, e.g. scripts/slurm-local.sh run go test -tags slurm -run TestSlurmCluster .", c)
		}
	}
	start := time.Now()
	// Jobs run on nodes that see this directory (one node here); a
	// t.TempDir under /tmp would not be shared on a real cluster.
	tmp, err := os.MkdirTemp(".", ".slurm-test-")
	if err != nil {
		t.Fatal(err)
	}
	tmp, _ = filepath.Abs(tmp)
	t.Cleanup(func() { os.RemoveAll(tmp) })
	bin := filepath.Join(tmp, "repro")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(tmp, "data") // the quickstart's data is embedded
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}

	// The reference: a local run with 2 workers.
	local := filepath.Join(tmp, "local")
	if out, err := exec.Command(bin, "run", quickstart, "-o", local, "-j", "2", "-q").CombinedOutput(); err != nil {
		t.Fatalf("local run: %v\n%s", err, out)
	}
	t.Logf("local -j 2 run: %v", time.Since(start).Round(time.Second))

	dir := filepath.Join(tmp, "cluster")
	stdout, stderr := mustCLI(t, exitOK, "slurm", quickstart, "--tasks", "4", "-o", dir, "--data", data, "--repro", bin, "--time", "30:00", "--submit")
	t.Logf("repro slurm --submit:\n%s%s", stdout, stderr)
	ids := regexp.MustCompile(`(?m)^array job: (\d+)\nreport job: (\d+) `).FindStringSubmatch(stdout)
	if ids == nil {
		t.Fatalf("no job ids in\n%s", stdout)
	}
	array, report := ids[1], ids[2]

	// Kill task 2 once it has stored a result: mid-run.
	shard2 := filepath.Join(dir, results.Shard{I: 2, N: 4}.File())
	deadline := time.Now().Add(10 * time.Minute)
	for {
		if b, err := os.ReadFile(shard2); err == nil && strings.Count(string(b), "\n") >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task 2 stored no result in 10 minutes")
		}
		time.Sleep(100 * time.Millisecond)
	}
	slurmCmd(t, "scancel", array+"_2")
	t.Logf("cancelled task %s_2 at %v", array, time.Since(start).Round(time.Second))
	waitJobs(t, 15*time.Minute, array, report)
	if st := jobState(t, array+"_2"); st != "CANCELLED" {
		t.Errorf("task 2: state %s, want CANCELLED (it finished before scancel: the resume below is not exercised)", st)
	}
	for _, task := range []string{"_0", "_1", "_3"} {
		if st := jobState(t, array+task); st != "COMPLETED" {
			t.Errorf("task %s%s: state %s, want COMPLETED", array, task, st)
		}
	}
	// The report job ran after the array (afterany: a cancelled task does
	// not stop it): it wrote report.md and said shard 2 misses trials;
	// check failed or passed, but ran.
	log, err := os.ReadFile(filepath.Join(dir, "slurm", "repro-quickstart-report-"+report+".out"))
	if err != nil {
		t.Fatalf("report job log: %v", err)
	}
	t.Logf("report job log:\n%s", log)
	for _, want := range []string{"report: " + filepath.Join(dir, "report.md"), "shard 2/4: ", "3 of 4 shards complete", "passed, "} {
		if !strings.Contains(string(log), want) {
			t.Errorf("report job log: no %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err != nil {
		t.Errorf("the report job wrote no report.md: %v", err)
	}
	partial := len(merged(t, dir))

	// Resubmit task 2 alone, then the report job after it.
	again := strings.TrimSpace(strings.Split(slurmCmd(t, "sbatch", "--parsable", "--array=2", filepath.Join(dir, "slurm", "array.sbatch")), ";")[0])
	report2 := strings.TrimSpace(strings.Split(slurmCmd(t, "sbatch", "--parsable", "--dependency=afterany:"+again, filepath.Join(dir, "slurm", "report.sbatch")), ";")[0])
	waitJobs(t, 15*time.Minute, again, report2)
	if st := jobState(t, again+"_2"); st != "COMPLETED" {
		t.Errorf("resubmitted task 2: state %s, want COMPLETED", st)
	}
	taskLog, err := os.ReadFile(filepath.Join(dir, "slurm", "repro-quickstart-"+again+"_2.out"))
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`shard 2/4: \d+ of the 60 trials: (\d+) ran now, ([1-9]\d*) already done, 0 failed`).FindSubmatch(taskLog); m == nil {
		t.Errorf("the resubmitted task did not resume:\n%s", taskLog)
	}
	log, err = os.ReadFile(filepath.Join(dir, "slurm", "repro-quickstart-report-"+report2+".out"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "4 of 4 shards complete") || !strings.Contains(string(log), "report: ") {
		t.Errorf("second report job:\n%s", log)
	}

	got, want := merged(t, dir), merged(t, local)
	if partial >= len(want) {
		t.Errorf("before the resubmission %d of %d results: task 2 lost none", partial, len(want))
	}
	if len(got) != len(want) || !reflect.DeepEqual(got, want) {
		t.Errorf("merged cluster results (%d) differ from the local -j 2 run (%d)", len(got), len(want))
	}
	if out, err := exec.Command(bin, "diff", local, dir).CombinedOutput(); err != nil || !strings.Contains(string(out), " 0 regressions") {
		t.Errorf("repro diff local cluster: %v\n%s", err, out)
	}
	t.Logf("total: %v", time.Since(start).Round(time.Second))
}
