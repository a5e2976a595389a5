package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/atomicfile"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
)

const slurmSynopsis = "slurm FILE.yaml --tasks N [--partition P] [--time T] [--cpus-per-task C] [--mem M] [-o DIR] [--data DIR] [--set key.path=value ...] [--repro PATH] [--submit]"

// slurmDir is the directory of an output directory that holds the
// scripts `repro slurm` writes and the jobs' logs.
const slurmDir = "slurm"

// slurmJob is what the sbatch scripts are written from.
type slurmJob struct {
	Name                            string
	Tasks, CPUs                     int
	Partition, Time, Mem            string
	Repro, Spec, Dir, Data, Scripts string
}

// cmdSlurm writes the sbatch scripts that run an experiment as a Slurm
// job array, one shard per array task, and a report job that runs after
// the array; with --submit it submits them.
func cmdSlurm(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("slurm", stderr, slurmSynopsis)
	tasks := fs.Int("tasks", 0, "number of array tasks, each running one shard of the trials (required)")
	partition := fs.String("partition", "", "Slurm partition (default: the cluster's)")
	limit := fs.String("time", "", "time limit per task, e.g. 2:00:00 (default: the partition's)")
	cpus := fs.Int("cpus-per-task", 1, "CPUs per task; the task runs that many trials at once")
	mem := fs.String("mem", "", "memory per task, e.g. 4G (default: the partition's)")
	out := fs.String("o", "", "output directory, on storage every node sees (default out/<experiment name>, made absolute)")
	data := fs.String("data", "", "data directory, an absolute path every node sees (default $"+datasets.DataDirEnv+", else the user cache directory)")
	reproPath := fs.String("repro", "", "repro binary the tasks run, on storage every node sees (default: this one)")
	submit := fs.Bool("submit", false, "submit the jobs with sbatch and print their ids")
	var sets multiFlag
	fs.Var(&sets, "set", "override a spec field (repeatable)")
	arg, ok := parseOne(fs, args)
	if !ok {
		return exitUsage
	}
	if *tasks < 1 {
		fmt.Fprintf(stderr, "repro slurm: --tasks %d: want at least 1 array task\n", *tasks)
		return exitUsage
	}
	if *cpus < 1 {
		fmt.Fprintf(stderr, "repro slurm: --cpus-per-task %d: want at least 1\n", *cpus)
		return exitUsage
	}
	for _, f := range []struct{ name, v string }{{"partition", *partition}, {"time", *limit}, {"mem", *mem}} {
		if !slurmValue.MatchString(f.v) {
			fmt.Fprintf(stderr, "repro slurm: --%s %q: want letters, digits and - _ . : , only\n", f.name, f.v)
			return exitUsage
		}
	}
	dataDir := datasets.DataDir(*data)
	if !filepath.IsAbs(dataDir) {
		fmt.Fprintf(stderr, "repro slurm: data directory %q is relative: the array tasks run on other nodes, in other directories; give an absolute path on storage every node sees (--data or $%s)\n", dataDir, datasets.DataDirEnv)
		return exitUsage
	}
	if fi, err := os.Stat(dataDir); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderr, "warning: data directory %s is not a directory here; the tasks will need it on their nodes\n", dataDir)
	}
	sp, err := loadSpec(arg, sets, stderr)
	if err != nil {
		return exitUsage
	}
	plan, err := spec.NewPlan(sp)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", arg, err)
		return exitUsage
	}
	if *tasks > len(plan.Trials) {
		fmt.Fprintf(stderr, "warning: %d tasks for %d trials: %d tasks will have nothing to run\n", *tasks, len(plan.Trials), *tasks-len(plan.Trials))
	}
	dir, err := filepath.Abs(outDir(*out, sp))
	if err != nil {
		fmt.Fprintf(stderr, "repro slurm: %v\n", err)
		return exitError
	}
	bin := *reproPath
	if bin == "" {
		if bin, err = os.Executable(); err == nil {
			bin, err = filepath.EvalSymlinks(bin)
		}
		if err != nil {
			fmt.Fprintf(stderr, "repro slurm: finding the repro binary: %v (give it with --repro)\n", err)
			return exitError
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		fmt.Fprintf(stderr, "repro slurm: %v\n", err)
		return exitError
	}
	job := slurmJob{Name: sp.Name, Tasks: *tasks, CPUs: *cpus, Partition: *partition, Time: *limit, Mem: *mem,
		Repro: bin, Spec: filepath.Join(dir, spec.SpecFile), Dir: dir, Data: dataDir, Scripts: filepath.Join(dir, slurmDir)}

	// The resolved spec first: every task runs it, whatever happens to
	// FILE.yaml while the array waits in the queue.
	if err := os.MkdirAll(job.Scripts, 0o755); err != nil {
		fmt.Fprintf(stderr, "repro slurm: %v\n", err)
		return exitError
	}
	if err := runner.WriteSpec(dir, sp); err != nil {
		fmt.Fprintf(stderr, "repro slurm: %v\n", err)
		return exitError
	}
	files := map[string]string{"array.sbatch": job.arrayScript(), "report.sbatch": job.reportScript(), "submit.sh": job.submitScript()}
	for _, name := range []string{"array.sbatch", "report.sbatch", "submit.sh"} {
		if err := atomicfile.WriteFile(filepath.Join(job.Scripts, name), []byte(files[name]), 0o755); err != nil {
			fmt.Fprintf(stderr, "repro slurm: %v\n", err)
			return exitError
		}
	}
	fmt.Fprintf(stdout, "%s: %d trials in %d array tasks\n", sp.Name, len(plan.Trials), *tasks)
	fmt.Fprintf(stdout, "wrote %s, %s and %s\n", filepath.Join(job.Scripts, "array.sbatch"), "report.sbatch", "submit.sh")
	if !*submit {
		fmt.Fprintf(stdout, "submit with: sh %s\n", shQuote(filepath.Join(job.Scripts, "submit.sh")))
		return exitOK
	}
	array, err := sbatch(stderr, filepath.Join(job.Scripts, "array.sbatch"))
	if err != nil {
		fmt.Fprintf(stderr, "repro slurm: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "array job: %s\n", array)
	report, err := sbatch(stderr, "--dependency=afterany:"+array, filepath.Join(job.Scripts, "report.sbatch"))
	if err != nil {
		fmt.Fprintf(stderr, "repro slurm: %v (the array job %s is submitted; run repro report %s when it ends)\n", err, array, dir)
		return exitError
	}
	fmt.Fprintf(stdout, "report job: %s (after the array)\n", report)
	fmt.Fprintf(stdout, "rerun one task: sbatch --array=I %s\n", filepath.Join(job.Scripts, "array.sbatch"))
	return exitOK
}

// slurmValue is what --partition, --time and --mem may hold: a Slurm
// value, nothing a script would read as more.
var slurmValue = regexp.MustCompile(`^[A-Za-z0-9_.:,+-]*$`)

// sbatch submits with sbatch --parsable and returns the job id.
func sbatch(stderr io.Writer, args ...string) (string, error) {
	cmd := exec.Command("sbatch", append([]string{"--parsable"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("sbatch not found: is this a Slurm login node? (without --submit, repro slurm only writes the scripts)")
		}
		return "", fmt.Errorf("sbatch %s: %w", strings.Join(args, " "), err)
	}
	// --parsable prints "id" or "id;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(out.String()), ";")
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("sbatch %s printed %q, not a job id", strings.Join(args, " "), out.String())
	}
	return id, nil
}

// header writes the #SBATCH lines every job has.
func (j *slurmJob) header(b *strings.Builder, name string, cpus int, output string) {
	b.WriteString("#!/bin/sh\n")
	fmt.Fprintf(b, "#SBATCH --job-name=%s\n", name)
	fmt.Fprintf(b, "#SBATCH --cpus-per-task=%d\n", cpus)
	for _, o := range []struct{ flag, v string }{{"partition", j.Partition}, {"time", j.Time}, {"mem", j.Mem}} {
		if o.v != "" {
			fmt.Fprintf(b, "#SBATCH --%s=%s\n", o.flag, o.v)
		}
	}
	// #SBATCH lines are not shell: a path with a space cannot be quoted
	// there; Slurm takes the rest of the line as the value.
	fmt.Fprintf(b, "#SBATCH --output=%s\n", filepath.Join(j.Scripts, output))
}

// arrayScript is the job array: task I runs shard I of N.
func (j *slurmJob) arrayScript() string {
	var b strings.Builder
	j.header(&b, "repro-"+j.Name, j.CPUs, "%x-%A_%a.out")
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", j.Tasks-1)
	fmt.Fprintf(&b, `# Written by repro slurm: task I of the array runs shard I of the %d shards
# of the experiment %s. N is written out, not $SLURM_ARRAY_TASK_COUNT, so
# that resubmitting one task (sbatch --array=I this-file) runs the same
# shard; a rerun task resumes from its results file.
set -eu
exec %s run %s --shard "$SLURM_ARRAY_TASK_ID/%d" -o %s --data %s -j "${SLURM_CPUS_PER_TASK:-1}"
`, j.Tasks, j.Name, shQuote(j.Repro), shQuote(j.Spec), j.Tasks, shQuote(j.Dir), shQuote(j.Data))
	return b.String()
}

// reportScript is the job that merges the shards once the array ends
// (afterany: also when tasks failed, to say which shards miss trials).
func (j *slurmJob) reportScript() string {
	var b strings.Builder
	j.header(&b, "repro-"+j.Name+"-report", 1, "%x-%j.out")
	fmt.Fprintf(&b, `# Written by repro slurm: runs after every task of the array has ended,
# merges the shards' results into the reports and checks the expectations.
set -u
%[1]s report %[2]s
status=$?
%[1]s check %[2]s || status=$?
exit $status
`, shQuote(j.Repro), shQuote(j.Dir))
	return b.String()
}

// submitScript submits the array and the report job after it.
func (j *slurmJob) submitScript() string {
	return fmt.Sprintf(`#!/bin/sh
# Written by repro slurm: submits the job array, then the report job after it.
set -eu
array=$(sbatch --parsable %[1]s)
array=${array%%%%;*}
report=$(sbatch --parsable --dependency=afterany:"$array" %[2]s)
echo "array job: $array"
echo "report job: ${report%%%%;*} (after the array)"
`, shQuote(filepath.Join(j.Scripts, "array.sbatch")), shQuote(filepath.Join(j.Scripts, "report.sbatch")))
}

// shQuote quotes s for a POSIX shell when it needs quoting.
func shQuote(s string) string {
	if s != "" && regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
