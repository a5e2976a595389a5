package main

import (
	"context"
	"fmt"
	"github.com/repro-ml/repro/bench/internal/peer"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/repro-ml/repro/datasets"
	_ "github.com/repro-ml/repro/datasets/csv"
	_ "github.com/repro-ml/repro/datasets/text"
	_ "github.com/repro-ml/repro/datasets/uci"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

// realConfig is the configuration of a real-size run (-problem other than
// dna).
type realConfig struct {
	problem  string // 20news, 20news-bigrams, spam, isolet
	dataDir  string // holds 20news-bydate.tar.gz
	spamFile string // spam.csv written from R's kernlab
	Cs       []float64
	bias     bool
	reps     int
	solvers  []string // l2, l2-lbfgs, l2-tron, l2-newton, l1
	minDF    int
	stop     string // 20news: stop_words
	export   string // if set, write the LIBSVM files there and stop
}

// realProblem loads the problem's training and test sets.
func realProblem(cfg realConfig) (name string, train, test *datasets.Dataset, err error) {
	switch cfg.problem {
	case "20news", "20news-bigrams":
		l, err := datasets.Lookup("20news")
		if err != nil {
			return "", nil, nil, err
		}
		p := param.Defaults(l.Params)
		p["min_df"] = cfg.minDF
		if cfg.stop != "" {
			p["stop_words"] = cfg.stop
		}
		if cfg.problem == "20news-bigrams" {
			p["ngrams"] = 2
		}
		d, err := l.Load(context.Background(), datasets.Env{DataDir: cfg.dataDir}, p)
		if err != nil {
			return "", nil, nil, err
		}
		tr, te := d.SplitRows()
		name = fmt.Sprintf("20 Newsgroups by-date (20news loader: min_df %d, ngrams %d, stop words %s, log(1+count))", cfg.minDF, p["ngrams"], p["stop_words"])
		return name, d.Subset(tr), d.Subset(te), nil
	case "isolet":
		l, err := datasets.Lookup("isolet")
		if err != nil {
			return "", nil, nil, err
		}
		d, err := l.Load(context.Background(), datasets.Env{DataDir: cfg.dataDir}, param.Defaults(l.Params))
		if err != nil {
			return "", nil, nil, err
		}
		tr, te := d.SplitRows()
		return "ISOLET (UCI, 617 dense columns as given, 26 letters; isolet1-4 / isolet5)", d.Subset(tr), d.Subset(te), nil
	case "spam":
		l, err := datasets.Lookup("csv")
		if err != nil {
			return "", nil, nil, err
		}
		p := param.Defaults(l.Params)
		p["file"] = cfg.spamFile
		p["label"] = "type"
		d, err := l.Load(context.Background(), datasets.Env{DataDir: "/"}, p)
		if err != nil {
			return "", nil, nil, fmt.Errorf("%w (write it with: Rscript -e 'library(kernlab); data(spam); write.csv(spam, \"%s\", row.names=FALSE)')", err, cfg.spamFile)
		}
		// 2,000 training rows drawn at random (seed 1), the rest for testing.
		rng := rand.New(rand.NewPCG(1, 0x7370616d))
		perm := rng.Perm(d.Rows())
		tr, te := slices.Clone(perm[:2000]), slices.Clone(perm[2000:])
		slices.Sort(tr)
		slices.Sort(te)
		return "spam (kernlab, 57 unscaled columns; 2,000 random training rows, seed 1)", d.Subset(tr), d.Subset(te), nil
	}
	return "", nil, nil, fmt.Errorf("unknown problem %q (dna, 20news, 20news-bigrams, spam, isolet)", cfg.problem)
}

// realSolver pairs a liblinear solver with repro's plugin and the
// tolerances tried, loosest first, to find repro's time to liblinear's
// objective.
type realSolver struct {
	key, flag, plugin, solver string
	sweep                     []float64
}

var realSolvers = []realSolver{
	{"l2", "0", "logreg-l2", "", []float64{1e-2, 1e-3, 1e-4, 1e-5}},
	{"l2-lbfgs", "0", "logreg-l2", "lbfgs", []float64{1e-2, 1e-3, 1e-4, 1e-5}},
	{"l2-tron", "0", "logreg-l2", "tron", []float64{1e-2, 1e-3, 1e-4, 1e-5}},
	{"l2-newton", "0", "logreg-l2", "newton", []float64{1e-2, 1e-3, 1e-4, 1e-5}},
	{"l1", "6", "logreg-l1", "", []float64{100, 30, 10, 3, 1, 0.3, 0.1, 0.03, 0.01, 1e-3, 1e-4}},
}

// measurement is one fit: CPU and wall seconds, peak resident memory.
type measurement struct {
	cpu, wall float64
	rssMB     float64
	acc, obj  float64
	conv      bool
	tol       float64
}

func runReal(cfg realConfig) error {
	for _, bin := range []string{"liblinear-train", "liblinear-predict"} {
		if _, err := exec.LookPath(bin); err != nil {
			return fmt.Errorf("%s not found (apt-get install -y liblinear-tools): %w", bin, err)
		}
	}
	name, train, test, err := realProblem(cfg)
	if err != nil {
		return err
	}
	if cfg.export != "" {
		for f, d := range map[string]*datasets.Dataset{"train": train, "test": test} {
			if err := writeLibSVM(filepath.Join(cfg.export, f), d); err != nil {
				return err
			}
		}
		n, d := train.X.Dims()
		fmt.Printf("%s: %s/train (%d × %d, %d non-zeros) and %s/test (%d rows)\n", name, cfg.export, n, d, nnz(train.X), cfg.export, test.Rows())
		return nil
	}
	tmp, err := os.MkdirTemp("", "repro-liblinear-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	trainFile, testFile := filepath.Join(tmp, "train"), filepath.Join(tmp, "test")
	if err := writeLibSVM(trainFile, train); err != nil {
		return err
	}
	if err := writeLibSVM(testFile, test); err != nil {
		return err
	}
	n, d := train.X.Dims()
	bias := "no bias (liblinear -B -1, repro intercept: false)"
	// Same objective: liblinear's -B 1 is a penalized constant feature, so
	// repro fits intercept: false on the same appended column of ones.
	trainR, testR := train, test
	if cfg.bias {
		bias = "bias: liblinear -B 1 = repro intercept: false on the same appended column of ones (penalized, as liblinear's)"
		trainR, testR = withOnesAny(train), withOnesAny(test)
	}
	fmt.Printf("%s\n  train %d × %d (%d non-zeros), test %d, %d classes; %s\n", name, n, d, nnz(train.X), test.Rows(), len(train.Classes), bias)
	fmt.Printf("  %s, %d CPUs, %s; liblinear-train -e %s; median of %d runs, liblinear and repro back to back\n", runtime.Version(), runtime.NumCPU(), time.Now().Format("2006-01-02 15:04"), libEps, cfg.reps)
	fmt.Println("  liblinear's times include reading the LIBSVM file; repro's are the fit alone. CPU = user+system seconds; RSS = peak resident set of the process (repro: during the fit, data included).")
	fmt.Println()
	fmt.Println("| solver | C | liblinear acc | repro acc | liblinear obj | repro obj | rel. diff | liblinear CPU s (wall) | repro CPU s (wall) | repro/liblinear CPU | converged | liblinear RSS MB | repro RSS MB | repro to liblinear's obj: tol, CPU s | ratio |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	var fixedCPU []float64
	defer func() {
		fmt.Printf("\nliblinear-train -e 1000 (process start, reading the file, one gradient; median CPU s per row of the table): %.3f\n", fixedCPU)
	}()
	for _, s := range realSolvers {
		if !slices.Contains(cfg.solvers, s.key) {
			continue
		}
		for _, C := range cfg.Cs {
			var libs, reps, reach []measurement
			for r := 0; r < cfg.reps; r++ {
				lib, err := runPeer(tmp, s.flag, C, cfg.bias, trainFile, testFile, test, s.plugin, trainR)
				if err != nil {
					return err
				}
				libs = append(libs, lib)
				rep, err := measureRepro(s.plugin, s.solver, C, 0, trainR, testR)
				if err != nil {
					return err
				}
				reps = append(reps, rep)
				// Loosest tolerance first: the first that reaches
				// liblinear's objective is the fastest.
				for _, tol := range s.sweep {
					m, err := measureRepro(s.plugin, s.solver, C, tol, trainR, testR)
					if err != nil {
						return err
					}
					if m.obj <= lib.obj*(1+1e-12) {
						reach = append(reach, m)
						break
					}
				}
			}
			// liblinear's fixed cost: the same run at -e 1000 stops after
			// the first gradient, so its time is starting the process,
			// reading the file and one pass.
			var fixed []measurement
			for r := 0; r < cfg.reps; r++ {
				eps := libEps
				libEps = "1000"
				m, err := runPeer(tmp, s.flag, C, cfg.bias, trainFile, testFile, test, s.plugin, trainR)
				libEps = eps
				if err != nil {
					return err
				}
				fixed = append(fixed, m)
			}
			fixedCPU = append(fixedCPU, median(fixed).cpu)
			lib, rep := median(libs), median(reps)
			conv := "yes"
			if !rep.conv {
				conv = "**no (cap)**"
			}
			reachS, ratioS := "not reached", "—"
			if len(reach) > 0 {
				rm := median(reach)
				reachS = fmt.Sprintf("%g, %.3f", rm.tol, rm.cpu)
				ratioS = fmt.Sprintf("%.2f", rm.cpu/lib.cpu)
			}
			label := s.plugin
			if s.solver != "" {
				label += " " + s.solver
			}
			fmt.Printf("| %s (-s %s) | %g | %.2f | %.2f | %.4f | %.4f | %+.1e | %.3f (%.3f) | %.3f (%.3f) | %.2f | %s | %.0f | %.0f | %s | %s |\n",
				label, s.flag, C, lib.acc, rep.acc, lib.obj, rep.obj, (rep.obj-lib.obj)/lib.obj,
				lib.cpu, lib.wall, rep.cpu, rep.wall, rep.cpu/lib.cpu, conv, lib.rssMB, rep.rssMB, reachS, ratioS)
		}
	}
	return nil
}

// median returns the run of median CPU time.
func median(ms []measurement) measurement {
	s := slices.Clone(ms)
	slices.SortFunc(s, func(a, b measurement) int {
		switch {
		case a.cpu < b.cpu:
			return -1
		case a.cpu > b.cpu:
			return 1
		}
		return 0
	})
	return s[len(s)/2]
}

// runPeer trains liblinear and measures it from its rusage; its objective
// is evaluated by repro on trainR (the training data with the column of
// ones when -B 1).
func runPeer(dir, solver string, C float64, bias bool, trainFile, testFile string, test *datasets.Dataset, plugin string, trainR *datasets.Dataset) (measurement, error) {
	model := filepath.Join(dir, "model")
	out := filepath.Join(dir, "pred")
	args := []string{"-q", "-s", solver, "-c", strconv.FormatFloat(C, 'g', -1, 64), "-e", libEps}
	if bias {
		args = append(args, "-B", "1")
	}
	start := time.Now()
	cmd := exec.Command("liblinear-train", append(args, trainFile, model)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return measurement{}, fmt.Errorf("liblinear-train: %w: %s", err, b)
	}
	m := measurement{wall: time.Since(start).Seconds(), conv: true}
	ps := cmd.ProcessState
	m.cpu = (ps.UserTime() + ps.SystemTime()).Seconds()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		m.rssMB = float64(ru.Maxrss) / 1024
	}
	res := &libResult{}
	if err := readModel(model, res); err != nil {
		return m, err
	}
	var err error
	if m.acc, err = predict(model, testFile, out, test); err != nil {
		return m, err
	}
	// A class absent from the model file (liblinear keeps only the
	// classes of the training file) cannot occur here: every class has
	// training rows.
	m.obj = objective(plugin, C, trainR, res.W, res.labels)
	return m, nil
}

// measureRepro fits repro (tol 0: the plugin's default) and measures CPU
// time, wall time and the process's peak RSS during the fit.
func measureRepro(plugin, solver string, C, tol float64, train, test *datasets.Dataset) (measurement, error) {
	pl, err := methods.Lookup(plugin)
	if err != nil {
		return measurement{}, err
	}
	v := param.Defaults(pl.Params)
	v["C"] = C
	v["intercept"] = false
	if solver != "" {
		v["solver"] = solver
	}
	if tol > 0 {
		v["tol"] = tol
	}
	meth, err := methods.New(plugin, v)
	if err != nil {
		return measurement{}, err
	}
	runtime.GC()
	resetPeakRSS()
	cpu0, start := peer.CPUSeconds(), time.Now()
	model, err := meth.Fit(context.Background(), train, &methods.Env{Seed: 1})
	if err != nil {
		return measurement{}, err
	}
	m := measurement{wall: time.Since(start).Seconds(), cpu: peer.CPUSeconds() - cpu0, rssMB: peakRSSMB(), tol: tol}
	info := model.(methods.Informer).Info()
	m.obj, m.conv = info.Objective, info.Converged
	m.acc = accuracy(model.Predict(test.X), test.Y)
	return m, nil
}

// resetPeakRSS resets the kernel's peak resident set of this process
// (Linux: "5" to /proc/self/clear_refs); peakRSSMB reads it back.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func peakRSSMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				return kb / 1024
			}
		}
	}
	return math.NaN()
}

func nnz(X matrix.Matrix) int {
	if c, ok := X.(*matrix.CSR); ok {
		return c.NNZ()
	}
	k := 0
	n, _ := X.Dims()
	for i := 0; i < n; i++ {
		X.Row(i, func(_ int, v float64) {
			if v != 0 {
				k++
			}
		})
	}
	return k
}

// withOnesAny appends a column of ones, keeping sparse data sparse.
func withOnesAny(d *datasets.Dataset) *datasets.Dataset {
	if _, ok := d.X.(*matrix.CSR); !ok {
		return withOnes(d)
	}
	n, c := d.X.Dims()
	b := matrix.NewBuilder(c + 1)
	for i := 0; i < n; i++ {
		d.X.Row(i, func(j int, v float64) { b.Add(j, v) })
		b.Add(c, 1)
		b.EndRow()
	}
	out := *d
	out.X = b.Build()
	return &out
}
