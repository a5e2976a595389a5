package main

// Real-size problems (issue 13): -problem isolet (RBF svm against libsvm)
// and -problem spam (linear svm against liblinear -s 3 and libsvm -t 0).
// The data is loaded as repro loads it, written as LIBSVM files, the peer
// runs on them under /usr/bin/time -v (its time includes reading the file)
// and repro's fit runs in a child process of this program (the same
// binary, REPRO_BENCH_CHILD set) so that its peak resident memory
// (getrusage) is that of a process holding the data and the fit, as the
// peer's is. Every measurement is repeated -repeat times and the medians
// are printed.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	benchpeer "github.com/repro-ml/repro/bench/internal/peer"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/repro-ml/repro/datasets/csv"
	"github.com/repro-ml/repro/datasets/uci"
	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods/kernel"
	"github.com/repro-ml/repro/methods/svm"
)

// realConfig is one real-size comparison.
type realConfig struct {
	Problem string  // isolet or spam
	Path    string  // spam: the CSV file
	C       float64 // box constraint
	Gamma   float64 // isolet: libsvm's gamma
	CacheMB float64 // libsvm -m and repro's cache_mb
	Tol     float64 // repro's tol (libsvm -e 0.001 and liblinear -e 0.1 are the peers' defaults)
	Rows    int     // isolet: training rows used (0: all 6238), repeated rows beyond
	Solver  string  // repro's solver
	MaxIter int     // repro's max_iter (0: 10,000,000)
	NoPeers bool    // run repro only
}

// problem is a loaded problem: training and test rows with labels ±1.
type problem struct {
	name             string
	train, test      matrix.Matrix
	ytrain, ytest    []float64
	description      string
	trainRows, tests int
}

func loadProblem(c realConfig) (*problem, error) {
	switch c.Problem {
	case "isolet":
		dir := filepath.Join(datatest.PaperDir(), "uci", "isolet")
		d, err := uci.LoadIsolet(filepath.Join(dir, "isolet1+2+3+4.csv.gz"), filepath.Join(dir, "isolet5.csv.gz"))
		if err != nil {
			return nil, err
		}
		tr, te := d.SplitRows()
		n0 := len(tr)
		if c.Rows > 0 {
			// Repeat the training rows (perturbed by the row's copy number
			// in the last decimal) to reach c.Rows.
			more := make([]int, 0, c.Rows)
			for len(more) < c.Rows {
				more = append(more, tr[len(more)%len(tr)])
			}
			tr = more
		}
		vowel := func(i int) float64 {
			switch d.Classes[d.Label(i)] {
			case "A", "E", "I", "O", "U":
				return 1
			}
			return -1
		}
		p := &problem{name: "isolet", train: d.X.RowsOf(tr), test: d.X.RowsOf(te)}
		if c.Rows > 0 {
			X := p.train.(*matrix.Dense)
			for k := n0; k < c.Rows; k++ {
				row := X.RawRow(k)
				row[k%len(row)] += 1e-3 * float64(k/n0)
			}
		}
		for _, i := range tr {
			p.ytrain = append(p.ytrain, vowel(i))
		}
		for _, i := range te {
			p.ytest = append(p.ytest, vowel(i))
		}
		p.description = fmt.Sprintf("ISOLET vowels (A E I O U) vs rest, isolet1-4 train (%d rows) / isolet5 test (%d), 617 dense features", len(tr), len(te))
		return p, nil
	case "spam":
		o := csv.DefaultOptions()
		o.Label = "type"
		d, err := csv.Load(c.Path, o)
		if err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(1, 2))
		perm := rng.Perm(d.Rows())
		tr, te := perm[:2000], perm[2000:]
		sort.Ints(tr)
		sort.Ints(te)
		p := &problem{name: "spam", train: d.X.RowsOf(tr), test: d.X.RowsOf(te)}
		spam := func(i int) float64 {
			if d.Classes[d.Label(i)] == "spam" {
				return 1
			}
			return -1
		}
		for _, i := range tr {
			p.ytrain = append(p.ytrain, spam(i))
		}
		for _, i := range te {
			p.ytest = append(p.ytest, spam(i))
		}
		p.description = fmt.Sprintf("kernlab spam, unscaled, 2000 random training rows (seed 1) / %d test, 57 features", len(te))
		return p, nil
	}
	return nil, fmt.Errorf("unknown problem %q; want isolet or spam", c.Problem)
}

func writeMatrix(path string, X matrix.Matrix, y []float64) error {
	var b bytes.Buffer
	n, _ := X.Dims()
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%+d", int(y[i]))
		X.Row(i, func(j int, v float64) {
			if v != 0 {
				b.WriteString(" " + strconv.Itoa(j+1) + ":" + strconv.FormatFloat(v, 'g', -1, 64))
			}
		})
		b.WriteByte('\n')
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// outcome is one fit's measurements.
type outcome struct {
	Seconds   float64 // fit (repro) or process (peer) seconds
	CPU       float64 // user + system CPU seconds of the fit (repro) or process (peer)
	MaxRSSMB  float64 // peak resident memory of the process
	Accuracy  float64 // test accuracy, %
	Objective float64 // dual objective ½αᵀQα − Σα (peer: as printed)
	NSV       int
	Iter      int
	Converged bool
}

var (
	reObj  = regexp.MustCompile(`(?:obj|Objective value) = (-?[0-9.e+-]+)`)
	reNSV  = regexp.MustCompile(`nSV = ([0-9]+)`)
	reIter = regexp.MustCompile(`#iter = ([0-9]+)|(?m)^iter ([0-9]+)`)
	reRSS  = regexp.MustCompile(`Maximum resident set size \(kbytes\): ([0-9]+)`)
	reCPU  = regexp.MustCompile(`(?:User|System) time \(seconds\): ([0-9.]+)`)
)

// peer runs a training command under /usr/bin/time -v and its predict
// command, and reads what it printed.
func peer(train, predict []string, testFile string, ytest []float64) (outcome, error) {
	var o outcome
	start := time.Now()
	cmd := exec.Command("/usr/bin/time", append([]string{"-v"}, train...)...)
	out, err := cmd.CombinedOutput()
	o.Seconds = time.Since(start).Seconds()
	if err != nil {
		return o, fmt.Errorf("%s: %v: %s", train[0], err, out)
	}
	s := string(out)
	if m := reRSS.FindStringSubmatch(s); m != nil {
		kb, _ := strconv.ParseFloat(m[1], 64)
		o.MaxRSSMB = kb / 1024
	}
	for _, m := range reCPU.FindAllStringSubmatch(s, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		o.CPU += v
	}
	if m := reObj.FindStringSubmatch(s); m != nil {
		o.Objective, _ = strconv.ParseFloat(m[1], 64)
	}
	if m := reNSV.FindStringSubmatch(s); m != nil {
		o.NSV, _ = strconv.Atoi(m[1])
	}
	for _, m := range reIter.FindAllStringSubmatch(s, -1) {
		o.Iter, _ = strconv.Atoi(m[1] + m[2]) // the last one printed
	}
	o.Converged = !strings.Contains(s, "reaching max number of iterations")
	pout, err := exec.Command(predict[0], predict[1:]...).CombinedOutput()
	if err != nil {
		return o, fmt.Errorf("%s: %v: %s", predict[0], err, pout)
	}
	pred, err := os.ReadFile(predict[len(predict)-1])
	if err != nil {
		return o, err
	}
	f := make([]float64, 0, len(ytest))
	for _, l := range strings.Fields(string(pred)) {
		v, _ := strconv.ParseFloat(l, 64)
		f = append(f, v)
	}
	o.Accuracy = acc(f, ytest)
	_ = testFile
	return o, nil
}

func acc(f, y []float64) float64 {
	ok := 0
	for i := range y {
		if i < len(f) && (f[i] > 0) == (y[i] > 0) {
			ok++
		}
	}
	return 100 * float64(ok) / float64(len(y))
}

// reproFit is the child's work: load, fit, predict, report.
func reproFit(c realConfig) (outcome, error) {
	p, err := loadProblem(c)
	if err != nil {
		return outcome{}, err
	}
	s := &svm.SVM{C: c.C, Bias: true, Tol: c.Tol, MaxIter: c.MaxIter, CacheMB: c.CacheMB, Solver: c.Solver, Seed: 1}
	if s.MaxIter <= 0 {
		s.MaxIter = 10000000
	}
	if c.Problem == "isolet" {
		s.Kernel = kernel.Kernel{Kind: kernel.RBF, Sigma: math.Sqrt(1 / (2 * c.Gamma))}
	}
	cpu0 := benchpeer.CPUSeconds()
	start := time.Now()
	m, err := s.FitBinary(context.Background(), p.train, p.ytrain, nil)
	if err != nil {
		return outcome{}, err
	}
	o := outcome{Seconds: time.Since(start).Seconds(), CPU: benchpeer.CPUSeconds() - cpu0}
	info := m.Info()
	o.Objective, o.Iter, o.Converged, o.NSV = info.Objective, info.Iterations, info.Converged, len(m.Coef)
	o.Accuracy = acc(m.Decision(p.test), p.ytest)
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		o.MaxRSSMB = float64(ru.Maxrss) / 1024
	}
	return o, nil
}

// childEnv names the environment variable that makes this program a child
// fitting repro (its value is the JSON realConfig).
const childEnv = "REPRO_BENCH_CHILD"

func childMain() bool {
	js := os.Getenv(childEnv)
	if js == "" {
		return false
	}
	var c realConfig
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	o, err := reproFit(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(o)
	os.Exit(0)
	return true
}

func runChild(c realConfig) (outcome, error) {
	js, _ := json.Marshal(c)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+string(js))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return outcome{}, fmt.Errorf("repro child: %v: %s", err, stderr.Bytes())
	}
	var o outcome
	return o, json.Unmarshal(out, &o)
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// series runs f repeat times and returns the last outcome with the
// median seconds and peak memory, and every time.
func series(repeat int, f func() (outcome, error)) (outcome, []float64, error) {
	var o outcome
	var secs, cpu, rss []float64
	for r := 0; r < repeat; r++ {
		var err error
		if o, err = f(); err != nil {
			return o, nil, err
		}
		secs, cpu, rss = append(secs, o.Seconds), append(cpu, o.CPU), append(rss, o.MaxRSSMB)
	}
	o.Seconds, o.CPU, o.MaxRSSMB = median(secs), median(cpu), median(rss)
	return o, secs, nil
}

func realSize(c realConfig, repeat int) error {
	p, err := loadProblem(c)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "repro-libsvm")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	trf, tef := filepath.Join(tmp, "train"), filepath.Join(tmp, "test")
	if err := writeMatrix(trf, p.train, p.ytrain); err != nil {
		return err
	}
	if err := writeMatrix(tef, p.test, p.ytest); err != nil {
		return err
	}
	C := strconv.FormatFloat(c.C, 'g', -1, 64)
	m := strconv.FormatFloat(c.CacheMB, 'g', -1, 64)
	type row struct {
		name string
		o    outcome
		secs []float64
	}
	var rows []row
	add := func(name string, f func() (outcome, error)) error {
		o, secs, err := series(repeat, f)
		if err != nil {
			return err
		}
		rows = append(rows, row{name, o, secs})
		return nil
	}
	addPeer := func(name string, f func() (outcome, error)) error {
		if c.NoPeers {
			return nil
		}
		return add(name, f)
	}
	predict := func(bin string) []string { return []string{bin, tef, trf + ".model", tef + ".out"} }
	fmt.Printf("%s; C = %s", p.description, C)
	switch c.Problem {
	case "isolet":
		g := strconv.FormatFloat(c.Gamma, 'g', -1, 64)
		fmt.Printf(", RBF γ = %s (repro sigma %.6g), libsvm -m %s -e 0.001, repro cache_mb %s tol %g; medians of %d runs\n\n", g, math.Sqrt(1/(2*c.Gamma)), m, m, c.Tol, repeat)
		if err := addPeer("libsvm -t 2", func() (outcome, error) {
			return peer([]string{"svm-train", "-s", "0", "-t", "2", "-g", g, "-c", C, "-m", m, "-e", "0.001", trf, trf + ".model"}, predict("svm-predict"), tef, p.ytest)
		}); err != nil {
			return err
		}
		if err := add("repro svm rbf", func() (outcome, error) { return runChild(c) }); err != nil {
			return err
		}
	case "spam":
		fmt.Printf(", linear, bias; liblinear -s 3 -B 1 (default -e 0.1), libsvm -t 0 -e 0.001, repro solver %s tol %g max_iter %d; medians of %d runs\n\n", c.Solver, c.Tol, c.MaxIter, repeat)
		if err := addPeer("liblinear -s 3 -B 1", func() (outcome, error) {
			return peer([]string{"liblinear-train", "-s", "3", "-B", "1", "-c", C, trf, trf + ".model"}, predict("liblinear-predict"), tef, p.ytest)
		}); err != nil {
			return err
		}
		if err := addPeer("libsvm -t 0", func() (outcome, error) {
			return peer([]string{"svm-train", "-s", "0", "-t", "0", "-c", C, "-m", m, "-e", "0.001", trf, trf + ".model"}, predict("svm-predict"), tef, p.ytest)
		}); err != nil {
			return err
		}
		if err := add("repro svm linear", func() (outcome, error) { return runChild(c) }); err != nil {
			return err
		}
	}
	fmt.Println("| solver | accuracy % | dual objective | SVs | iterations | converged | seconds (median) | all seconds | CPU s (median) | peak RSS MB | time / first peer | CPU / first peer |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		var all []string
		for _, s := range r.secs {
			all = append(all, strconv.FormatFloat(s, 'f', 2, 64))
		}
		fmt.Printf("| %s | %.2f | %.4f | %d | %d | %v | %.3f | %s | %.3f | %.0f | %.2f | %.2f |\n", r.name, r.o.Accuracy, r.o.Objective, r.o.NSV, r.o.Iter, r.o.Converged,
			r.o.Seconds, strings.Join(all, ", "), r.o.CPU, r.o.MaxRSSMB, r.o.Seconds/rows[0].o.Seconds, r.o.CPU/rows[0].o.CPU)
	}
	return nil
}
