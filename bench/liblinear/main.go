// Command liblinear compares repro's logreg-l2 and logreg-l1 with Debian's
// liblinear-tools (LIBLINEAR 2.3) on the DNA splice data (StatLog 180-bit
// encoding), on a fixed stratified train/test split: the 3-class problem
// and the binary ei-vs-ie one.
//
// It needs liblinear-train and liblinear-predict on PATH
// (apt-get install -y liblinear-tools) and the file dna_splice.csv in the
// data directory (default ../shared/data/embed beside the checkout). Run it with
//
//	go run ./bench/liblinear [-data DIR] [-C 0.1,1,10] [-e 0.0001]
//
// LIBLINEAR 2.3 penalizes its bias (-B 1 appends a constant feature 1), so
// repro is fitted on the same objective: intercept=false with the same
// appended column. For every problem, solver (-s 0 / logreg-l2 with its
// default L-BFGS and with solver=tron, -s 6 / logreg-l1) and C it prints
// the test accuracy of both, their difference (which must be within 0.5
// point), both fit times (liblinear's includes starting the process and
// reading the file) and their ratio, the two objective values at the two
// solutions (repro's should be no larger, up to LIBLINEAR's tolerance),
// and, for reference, repro's accuracy and fit time with its default
// unpenalized intercept.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/methods/linear"
	"github.com/repro-ml/repro/param"
)

func main() {
	dataDir := flag.String("data", datatest.EmbedDir(), "directory holding dna_splice.csv")
	cs := flag.String("C", "0.1,1,10", "comma-separated values of C")
	nTrain := flag.Int("train", 2000, "training rows of the 3-class split (stratified)")
	seed := flag.Uint64("seed", 1, "seed of the split")
	eps := flag.String("e", "0.0001", "liblinear-train -e tolerance (LIBLINEAR's default, 0.01, stops far from the optimum)")
	problem := flag.String("problem", "dna", "dna (the DNA splice bench), or a real-size problem: 20news, 20news-bigrams, spam, isolet")
	paper := flag.String("paper", os.Getenv(datasets.DataDirEnv), "real-size problems: directory holding 20news-bydate.tar.gz (default $REPRO_DATA)")
	spam := flag.String("spam", "/tmp/spam.csv", "spam: the table written by Rscript -e 'library(kernlab); data(spam); write.csv(spam, \"/tmp/spam.csv\", row.names=FALSE)'")
	bias := flag.Bool("bias", false, "real-size problems: liblinear -B 1 and repro on the same appended column of ones")
	reps := flag.Int("reps", 3, "real-size problems: runs of each solver (the median is printed)")
	solvers := flag.String("solvers", "l2,l2-lbfgs,l2-tron,l1", "real-size problems: l2 (logreg-l2, default solver: auto), l2-lbfgs, l2-tron, l2-newton, l1 (logreg-l1)")
	minDF := flag.Int("mindf", 20, "20news: min_df (20 as Sandler et al.; 2 for bigrams)")
	stop := flag.String("stop", "default", "20news: stop_words (none keeps every word: the second export of issue 41, 12,003 words in ≥ 20 documents)")
	export := flag.String("export", "", "real-size problems: write the LIBSVM files DIR/train and DIR/test (what liblinear reads) and stop, for whole-process timings")
	flag.Parse()
	libEps = *eps
	if *problem != "dna" {
		Cs, err := parseCs(*cs)
		if err == nil {
			err = runReal(realConfig{problem: *problem, dataDir: *paper, spamFile: *spam, Cs: Cs, bias: *bias,
				reps: max(*reps, 1), solvers: strings.Split(*solvers, ","), minDF: *minDF, stop: *stop, export: *export})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "liblinear bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*dataDir, *cs, *nTrain, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "liblinear bench:", err)
		os.Exit(1)
	}
}

// libEps is the -e argument of liblinear-train.
var libEps string

type problem struct {
	name        string
	train, test *datasets.Dataset
}

func run(dataDir, cs string, nTrain int, seed uint64) error {
	for _, bin := range []string{"liblinear-train", "liblinear-predict"} {
		if _, err := exec.LookPath(bin); err != nil {
			return fmt.Errorf("%s not found (apt-get install -y liblinear-tools): %w", bin, err)
		}
	}
	Cs, err := parseCs(cs)
	if err != nil {
		return err
	}
	all, err := loadDNA(filepath.Join(dataDir, "dna_splice.csv"))
	if err != nil {
		return err
	}
	trainRows, testRows := stratifiedSplit(all, nTrain, seed)
	three := problem{"3-class", all.Subset(trainRows), all.Subset(testRows)}
	binary := problem{"ei-vs-ie", binarySubset(three.train), binarySubset(three.test)}

	tmp, err := os.MkdirTemp("", "repro-liblinear-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	fmt.Printf("DNA splice (StatLog, 180 binary features) from %s; stratified split, seed %d; liblinear-train -B 1 -e %s\n", dataDir, seed, libEps)
	fmt.Printf("%s, %d CPUs, %s\n", runtime.Version(), runtime.NumCPU(), time.Now().Format("2006-01-02"))
	for _, p := range []problem{three, binary} {
		fmt.Printf("  %-9s train %4d, test %4d, classes %v\n", p.name, p.train.Rows(), p.test.Rows(), p.train.Classes)
	}
	fmt.Println()
	fmt.Println("| problem | solver | C | liblinear acc | repro acc | diff | liblinear fit | repro fit | repro/liblinear time | objective: liblinear | repro | rel. diff | repro acc, unpenalized b | repro fit, unpenalized b |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	worst := 0.0
	for _, p := range []problem{three, binary} {
		trainFile := filepath.Join(tmp, p.name+".train")
		testFile := filepath.Join(tmp, p.name+".test")
		if err := writeLibSVM(trainFile, p.train); err != nil {
			return err
		}
		if err := writeLibSVM(testFile, p.test); err != nil {
			return err
		}
		for _, s := range []struct {
			flag, plugin, solver string // solver: logreg-l2's, "" for the default
		}{{"0", "logreg-l2", ""}, {"0", "logreg-l2", "tron"}, {"6", "logreg-l1", ""}} {
			for _, C := range Cs {
				lib, err := runLiblinear(tmp, s.flag, C, trainFile, testFile, p.test)
				if err != nil {
					return err
				}
				// Same objective as liblinear: constant feature, no
				// separate intercept.
				trainB, testB := withOnes(p.train), withOnes(p.test)
				start := time.Now()
				twin, err := fitRepro(s.plugin, s.solver, C, false, trainB)
				if err != nil {
					return err
				}
				reproTime := time.Since(start)
				acc := accuracy(twin.Predict(testB.X), p.test.Y)
				objRepro := twin.(methods.Informer).Info().Objective
				objLib := objective(s.plugin, C, trainB, lib.W, lib.labels)
				// repro's default: an unpenalized intercept.
				start = time.Now()
				model, err := fitRepro(s.plugin, s.solver, C, true, p.train)
				if err != nil {
					return err
				}
				timeB := time.Since(start)
				accB := accuracy(model.Predict(p.test.X), p.test.Y)
				diff := acc - lib.acc
				worst = math.Max(worst, math.Abs(diff))
				name := s.plugin
				if s.solver != "" {
					name += " " + s.solver
				}
				fmt.Printf("| %s | %s (-s %s) | %g | %.2f | %.2f | %+.2f | %.0f ms | %.0f ms | %.2f | %.4f | %.4f | %+.1e | %.2f | %.0f ms |\n",
					p.name, name, s.flag, C, lib.acc, acc, diff,
					ms(lib.time), ms(reproTime), float64(reproTime)/float64(lib.time), objLib, objRepro, (objRepro-objLib)/objLib, accB, ms(timeB))
			}
		}
	}
	fmt.Printf("\nlargest accuracy difference: %.2f points (limit 0.5)\n", worst)
	if worst > 0.5 {
		return errors.New("accuracy differs from liblinear by more than 0.5 point")
	}
	return nil
}

// parseCs parses a comma-separated list of positive values of C.
func parseCs(cs string) ([]float64, error) {
	var Cs []float64
	for _, s := range strings.Split(cs, ",") {
		c, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || c <= 0 {
			return nil, fmt.Errorf("bad C %q", s)
		}
		Cs = append(Cs, c)
	}
	return Cs, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// loadDNA reads dna_splice.csv: sequence, b001…b180, class.
func loadDNA(path string) (*datasets.Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("DNA splice data: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	header := strings.Split(sc.Text(), ",")
	d := len(header) - 2
	if d < 1 || header[0] != "sequence" || header[len(header)-1] != "class" {
		return nil, fmt.Errorf("%s: unexpected header %q…", path, header[:min(3, len(header))])
	}
	var X, y []float64
	classIdx := map[string]int{}
	var classes []string
	line := 1
	for sc.Scan() {
		line++
		fields := strings.Split(sc.Text(), ",")
		if len(fields) != d+2 {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d", path, line, len(fields), d+2)
		}
		for _, s := range fields[1 : d+1] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
			X = append(X, v)
		}
		c := fields[d+1]
		k, ok := classIdx[c]
		if !ok {
			k = len(classes)
			classIdx[c] = k
			classes = append(classes, c)
		}
		y = append(y, float64(k))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Sort classes by name so the encoding does not depend on row order.
	sorted := append([]string(nil), classes...)
	sortStrings(sorted)
	remap := make([]float64, len(classes))
	for k, c := range classes {
		for j, s := range sorted {
			if s == c {
				remap[k] = float64(j)
			}
		}
	}
	for i := range y {
		y[i] = remap[int(y[i])]
	}
	return &datasets.Dataset{Name: "dna", X: matrix.NewDense(len(y), d, X), Y: y, Classes: sorted}, nil
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// stratifiedSplit draws nTrain rows with each class in proportion.
func stratifiedSplit(d *datasets.Dataset, nTrain int, seed uint64) (train, test []int) {
	rng := rand.New(rand.NewPCG(seed, 0x6c69626c))
	byClass := make([][]int, len(d.Classes))
	for i, y := range d.Y {
		byClass[int(y)] = append(byClass[int(y)], i)
	}
	n := d.Rows()
	inTrain := make([]bool, n)
	for _, rows := range byClass {
		rng.Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
		k := int(math.Round(float64(nTrain) * float64(len(rows)) / float64(n)))
		for _, i := range rows[:k] {
			inTrain[i] = true
		}
	}
	for i := 0; i < n; i++ {
		if inTrain[i] {
			train = append(train, i)
		} else {
			test = append(test, i)
		}
	}
	return train, test
}

// binarySubset keeps the ei and ie rows, ei as class 0 and ie as class 1.
func binarySubset(d *datasets.Dataset) *datasets.Dataset {
	var ei, ie int
	for k, c := range d.Classes {
		switch c {
		case "ei":
			ei = k
		case "ie":
			ie = k
		}
	}
	var rows []int
	for i, y := range d.Y {
		if int(y) == ei || int(y) == ie {
			rows = append(rows, i)
		}
	}
	out := d.Subset(rows)
	for i, y := range out.Y {
		out.Y[i] = 0
		if int(y) == ie {
			out.Y[i] = 1
		}
	}
	out.Classes = []string{"ei", "ie"}
	return out
}

// writeLibSVM writes d with labels 1…K and 1-based feature indices.
func writeLibSVM(path string, d *datasets.Dataset) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i := 0; i < d.Rows(); i++ {
		fmt.Fprintf(w, "%d", int(d.Y[i])+1)
		d.X.Row(i, func(j int, v float64) {
			if v != 0 {
				fmt.Fprintf(w, " %d:%g", j+1, v)
			}
		})
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type libResult struct {
	acc    float64
	time   time.Duration
	W      [][]float64 // one row per feature (incl. the bias last), one column per model
	labels []int       // model column order as class indices
}

func runLiblinear(dir, solver string, C float64, trainFile, testFile string, test *datasets.Dataset) (*libResult, error) {
	model := filepath.Join(dir, "model")
	out := filepath.Join(dir, "pred")
	start := time.Now()
	cmd := exec.Command("liblinear-train", "-q", "-s", solver, "-c", strconv.FormatFloat(C, 'g', -1, 64), "-B", "1", "-e", libEps, trainFile, model)
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("liblinear-train: %w: %s", err, b)
	}
	res := &libResult{time: time.Since(start)}
	var err error
	if res.acc, err = predict(model, testFile, out, test); err != nil {
		return nil, err
	}
	if err := readModel(model, res); err != nil {
		return nil, err
	}
	return res, nil
}

// predict runs liblinear-predict with model on testFile and returns the
// accuracy (percent) against test's labels.
func predict(model, testFile, out string, test *datasets.Dataset) (float64, error) {
	if b, err := exec.Command("liblinear-predict", testFile, model, out).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("liblinear-predict: %w: %s", err, b)
	}
	pred, err := os.ReadFile(out)
	if err != nil {
		return 0, err
	}
	lines := strings.Fields(string(pred))
	if len(lines) != test.Rows() {
		return 0, fmt.Errorf("liblinear-predict: %d predictions for %d rows", len(lines), test.Rows())
	}
	ok := 0
	for i, s := range lines {
		if l, _ := strconv.Atoi(s); l-1 == int(test.Y[i]) {
			ok++
		}
	}
	return 100 * float64(ok) / float64(len(lines)), nil
}

// readModel parses a LIBLINEAR model file: header lines, "w", then one
// line of weights per feature.
func readModel(path string, res *libResult) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	inW := false
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case inW:
			row := make([]float64, len(f))
			for k, s := range f {
				if row[k], err = strconv.ParseFloat(s, 64); err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
			}
			res.W = append(res.W, row)
		case len(f) > 0 && f[0] == "label":
			for _, s := range f[1:] {
				l, _ := strconv.Atoi(s)
				res.labels = append(res.labels, l-1)
			}
		case len(f) > 0 && f[0] == "w":
			inW = true
		}
	}
	return nil
}

func fitRepro(plugin, solver string, C float64, intercept bool, train *datasets.Dataset) (methods.Model, error) {
	pl, err := methods.Lookup(plugin)
	if err != nil {
		return nil, err
	}
	v := param.Defaults(pl.Params)
	v["C"] = C
	v["intercept"] = intercept
	if solver != "" {
		v["solver"] = solver
	}
	m, err := methods.New(plugin, v)
	if err != nil {
		return nil, err
	}
	return m.Fit(context.Background(), train, &methods.Env{Seed: 1})
}

// withOnes appends a constant column of ones (LIBLINEAR's -B 1).
func withOnes(d *datasets.Dataset) *datasets.Dataset {
	n, c := d.X.Dims()
	X := matrix.NewDense(n, c+1, nil)
	for i := 0; i < n; i++ {
		row := X.RawRow(i)
		d.X.Row(i, func(j int, v float64) { row[j] = v })
		row[c] = 1
	}
	out := *d
	out.X = X
	return &out
}

// objective evaluates repro's objective (summed over one-vs-rest tasks) at
// LIBLINEAR's weights, on the data with the appended constant column.
func objective(plugin string, C float64, d *datasets.Dataset, W [][]float64, labels []int) float64 {
	_, p := d.X.Dims()
	K := len(d.Classes)
	tasks := K
	if K == 2 {
		tasks = 1
	}
	total := 0.0
	for t := 0; t < tasks; t++ {
		c, col, sign := t, t, 1.0
		if K == 2 {
			// One weight vector, positive for labels[0].
			c, col = 1, 0
			if labels[0] != 1 {
				sign = -1
			}
		} else {
			for k, l := range labels {
				if l == c {
					col = k
				}
			}
		}
		w := make([]float64, p)
		for j := range w {
			w[j] = sign * W[j][col]
		}
		y := make([]float64, d.Rows())
		for i, v := range d.Y {
			y[i] = -1
			if int(v) == c {
				y[i] = 1
			}
		}
		f := C * linear.LogisticLoss(d.X, y, w, 0, nil)
		for _, x := range w {
			if plugin == "logreg-l1" {
				f += math.Abs(x)
			} else {
				f += 0.5 * x * x
			}
		}
		total += f
	}
	return total
}

func accuracy(p *methods.Prediction, y []float64) float64 {
	ok := 0
	for i, v := range y {
		if p.Label(i) == int(v) {
			ok++
		}
	}
	return 100 * float64(ok) / float64(len(y))
}
