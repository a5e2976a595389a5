// Command libsvm compares repro's svm and med (ρ = 1, linear) with Debian's
// libsvm-tools on the splice-junction task of Jebara (2004): intron-exon
// (IE) vs exon-intron (EI), 1535 sequences, 60 nucleotides one-hot encoded
// A,C,G,T → 240 inputs, ambiguity codes as fractional codes (D = A/G/T,
// N = A/C/G/T, R = A/G, S = C/G), 200 random training rows and the other
// 1335 as test, repeated over several seeds.
//
// It needs svm-train and svm-predict on PATH
// (apt-get update && apt-get install -y libsvm-tools) and splice.data in
// the data directory (default uci/splice in $REPRO_DATA or ../shared/data/paper). Run
//
//	go run ./bench/libsvm [-data DIR] [-C 0.01,0.1,1,10,100] [-splits 10] [-rho 1,1e-4 -medc 2,11,101] [-solver auto|newton|cd]
//
// For every C it prints the mean test accuracy of libsvm (-t 0 -c C -e
// 0.001), repro's svm (linear, bias, tol 1e-3) and med (select features,
// ρ = 1, sigma2 = 10) at c = C and at c = C + 1, and the mean fit times
// and their ratios. MED's margin prior makes its c a barrier 0 ≤ λ < c
// whose slope at zero is 1 − 1/c, so c ≤ 1 yields the bias-only classifier;
// c = C + 1 is the comparable setting (a point on the decision boundary
// gets λ = c − 1).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/repro-ml/repro/internal/datatest"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods/kernel"
	"github.com/repro-ml/repro/methods/med"
	"github.com/repro-ml/repro/methods/svm"
)

func main() {
	dir := flag.String("data", filepath.Join(datatest.PaperDir(), "uci", "splice"), "directory holding splice.data")
	cs := flag.String("C", "0.01,0.1,1,10,100", "comma-separated values of C")
	splits := flag.Int("splits", 10, "number of random 200/1335 splits")
	seed := flag.Uint64("seed", 1, "seed of the splits")
	rhos := flag.String("rho", "", "also report med feature selection at these ρ (comma-separated), for every c in -medc")
	medc := flag.String("medc", "2,11,101", "values of c for the -rho table")
	flag.StringVar(&solver, "solver", "", "med solver: auto (the default when empty), newton or cd")
	problem := flag.String("problem", "splice", "splice (the table below), isolet (RBF svm vs libsvm) or spam (linear svm vs liblinear -s 3 and libsvm -t 0)")
	rc := realConfig{}
	flag.Float64Var(&rc.Gamma, "gamma", 0.002, "isolet: libsvm's RBF gamma (repro sigma = 1/sqrt(2 gamma))")
	flag.Float64Var(&rc.CacheMB, "m", 400, "isolet, spam: libsvm's -m and repro's cache_mb")
	flag.Float64Var(&rc.Tol, "tol", 1e-3, "isolet, spam: repro's tol")
	flag.IntVar(&rc.Rows, "rows", 0, "isolet: training rows (0: the 6238 of isolet1-4; more repeats them, perturbed)")
	flag.StringVar(&rc.Path, "csv", "/tmp/spam.csv", "spam: kernlab's spam table as CSV (write.csv(spam))")
	flag.StringVar(&rc.Solver, "svm-solver", "auto", "isolet, spam: repro svm's solver (auto, kernel, linear)")
	flag.IntVar(&rc.MaxIter, "max-iter", 0, "isolet, spam: repro's max_iter (0: its default, 10,000,000)")
	flag.BoolVar(&rc.NoPeers, "no-peers", false, "isolet, spam: run repro only")
	repeat := flag.Int("repeat", 3, "isolet, spam: runs of each solver (medians are printed)")
	if childMain() {
		return
	}
	flag.Parse()
	if *problem != "splice" {
		rc.Problem = *problem
		c, err := floats(*cs)
		if err == nil {
			rc.C = c[0]
			err = realSize(rc, *repeat)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "libsvm bench:", err)
			os.Exit(1)
		}
		return
	}
	err := run(*dir, *cs, *splits, *seed)
	if err == nil && *rhos != "" {
		err = selection(*dir, *rhos, *medc, *splits, *seed)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "libsvm bench:", err)
		os.Exit(1)
	}
}

// solver is the med solver (-solver); empty is med's default.
var solver string

var codes = map[byte][]float64{
	'A': {1, 0, 0, 0}, 'C': {0, 1, 0, 0}, 'G': {0, 0, 1, 0}, 'T': {0, 0, 0, 1},
	'D': {1. / 3, 0, 1. / 3, 1. / 3}, 'N': {.25, .25, .25, .25}, 'R': {.5, 0, .5, 0}, 'S': {0, .5, .5, 0},
}

// load reads the EI and IE rows of splice.data: y = +1 for IE.
func load(path string) ([][]float64, []float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var X [][]float64
	var y []float64
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		parts := strings.Split(sc.Text(), ",")
		if len(parts) != 3 {
			continue
		}
		cls, seq := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[2])
		if cls != "EI" && cls != "IE" {
			continue
		}
		if len(seq) != 60 {
			return nil, nil, fmt.Errorf("%s:%d: sequence of length %d", path, line, len(seq))
		}
		row := make([]float64, 0, 240)
		for i := 0; i < 60; i++ {
			c, ok := codes[seq[i]]
			if !ok {
				return nil, nil, fmt.Errorf("%s:%d: unknown nucleotide %q", path, line, seq[i])
			}
			row = append(row, c...)
		}
		X = append(X, row)
		if cls == "IE" {
			y = append(y, 1)
		} else {
			y = append(y, -1)
		}
	}
	return X, y, sc.Err()
}

func dense(X [][]float64, rows []int) *matrix.Dense {
	m := matrix.NewDense(len(rows), len(X[0]), nil)
	for k, i := range rows {
		copy(m.RawRow(k), X[i])
	}
	return m
}

func writeLibsvm(path string, X [][]float64, y []float64, rows []int) error {
	var b strings.Builder
	for _, i := range rows {
		fmt.Fprintf(&b, "%+d", int(y[i]))
		for j, v := range X[i] {
			if v != 0 {
				fmt.Fprintf(&b, " %d:%s", j+1, strconv.FormatFloat(v, 'g', -1, 64))
			}
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func accuracy(f []float64, y []float64, rows []int) float64 {
	ok := 0
	for k, i := range rows {
		if (f[k] > 0) == (y[i] > 0) {
			ok++
		}
	}
	return 100 * float64(ok) / float64(len(rows))
}

func floats(list string) ([]float64, error) {
	var out []float64
	for _, s := range strings.Split(list, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("bad value %q", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// selection prints med's test accuracy with feature selection (select
// features, sigma2 = 10) over ρ and c, on the same splits.
func selection(dir, rhoList, cList string, splits int, seed uint64) error {
	X, y, err := load(filepath.Join(dir, "splice.data"))
	if err != nil {
		return err
	}
	rhos, err := floats(rhoList)
	if err != nil {
		return err
	}
	cs, err := floats(cList)
	if err != nil {
		return err
	}
	fmt.Println("\nmed feature selection (mean test accuracy, mean sweeps, mean fit seconds)")
	fmt.Println()
	fmt.Println("| c | ρ | accuracy | sweeps | fit s |")
	fmt.Println("|---|---|---|---|---|")
	for _, c := range cs {
		for _, rho := range rhos {
			var acc, sweeps, secs float64
			for s := 0; s < splits; s++ {
				rng := rand.New(rand.NewPCG(seed, uint64(s)))
				perm := rng.Perm(len(X))
				train, test := perm[:200], perm[200:]
				ytr := make([]float64, len(train))
				for k, i := range train {
					ytr[k] = y[i]
				}
				e := &med.MED{C: c, Rho: rho, Sigma2: 10, Select: "features", Tol: 1e-3, MaxIter: 100000, Solver: solver}
				start := time.Now()
				mm, err := e.FitTasks(context.Background(), dense(X, train), [][]float64{ytr}, nil, nil)
				if err != nil {
					return err
				}
				secs += time.Since(start).Seconds()
				m := mm.(*med.Model)
				sweeps += float64(m.Info().Iterations)
				dec := m.Decision(dense(X, test))
				f := make([]float64, len(dec))
				for k := range dec {
					f[k] = dec[k][0]
				}
				acc += accuracy(f, y, test)
			}
			n := float64(splits)
			fmt.Printf("| %g | %g | %.1f | %.0f | %.3f |\n", c, rho, acc/n, sweeps/n, secs/n)
		}
	}
	return nil
}

func run(dir, csList string, splits int, seed uint64) error {
	X, y, err := load(filepath.Join(dir, "splice.data"))
	if err != nil {
		return err
	}
	if len(X) != 1535 {
		return fmt.Errorf("read %d EI/IE rows, want 1535", len(X))
	}
	for _, bin := range []string{"svm-train", "svm-predict"} {
		if _, err := exec.LookPath(bin); err != nil {
			return errors.New("svm-train/svm-predict not found: apt-get install -y libsvm-tools")
		}
	}
	var Cs []float64
	for _, s := range strings.Split(csList, ",") {
		c, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || c <= 0 {
			return fmt.Errorf("bad C %q", s)
		}
		Cs = append(Cs, c)
	}
	tmp, err := os.MkdirTemp("", "repro-libsvm")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Printf("splice EI vs IE, %d rows, 200 train / 1335 test, %d random splits (seed %d)\n\n", len(X), splits, seed)
	fmt.Println("| C | libsvm acc | svm acc | med acc (c=C) | med acc (c=C+1) | libsvm s | svm s | med s (c=C+1) | svm/libsvm time | med/libsvm time |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	ctx := context.Background()
	for _, C := range Cs {
		var acc [4]float64
		var tm [3]float64
		for s := 0; s < splits; s++ {
			rng := rand.New(rand.NewPCG(seed, uint64(s)))
			perm := rng.Perm(len(X))
			train, test := perm[:200], perm[200:]
			trf, tef := filepath.Join(tmp, "train"), filepath.Join(tmp, "test")
			if err := writeLibsvm(trf, X, y, train); err != nil {
				return err
			}
			if err := writeLibsvm(tef, X, y, test); err != nil {
				return err
			}
			start := time.Now()
			cmd := exec.Command("svm-train", "-q", "-s", "0", "-t", "0", "-c", strconv.FormatFloat(C, 'g', -1, 64), "-e", "0.001", trf, trf+".model")
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("svm-train: %v: %s", err, out)
			}
			tm[0] += time.Since(start).Seconds()
			out, err := exec.Command("svm-predict", tef, trf+".model", tef+".out").CombinedOutput()
			if err != nil {
				return fmt.Errorf("svm-predict: %v: %s", err, out)
			}
			pred, err := os.ReadFile(tef + ".out")
			if err != nil {
				return err
			}
			lines := strings.Fields(string(pred))
			f := make([]float64, len(lines))
			for k, l := range lines {
				f[k], _ = strconv.ParseFloat(l, 64)
			}
			acc[0] += accuracy(f, y, test)

			Xtr, Xte := dense(X, train), dense(X, test)
			ytr := make([]float64, len(train))
			for k, i := range train {
				ytr[k] = y[i]
			}
			sv := &svm.SVM{C: C, Kernel: kernel.Kernel{Kind: kernel.Linear}, Bias: true, Tol: 1e-3, MaxIter: 10000000, Solver: "kernel"}
			start = time.Now()
			sm, err := sv.FitBinary(ctx, Xtr, ytr, nil)
			if err != nil {
				return err
			}
			tm[1] += time.Since(start).Seconds()
			acc[1] += accuracy(sm.Decision(Xte), y, test)
			for v, c := range []float64{C, C + 1} {
				e := &med.MED{C: c, Rho: 1, Sigma2: 10, Select: "features", Tol: 1e-3, MaxIter: 100000, Solver: solver}
				start = time.Now()
				mm, err := e.FitTasks(ctx, Xtr, [][]float64{ytr}, nil, nil)
				if err != nil {
					return err
				}
				if v == 1 {
					tm[2] += time.Since(start).Seconds()
				}
				dec := mm.(*med.Model).Decision(Xte)
				f := make([]float64, len(dec))
				for k := range dec {
					f[k] = dec[k][0]
				}
				acc[2+v] += accuracy(f, y, test)
			}
		}
		n := float64(splits)
		fmt.Printf("| %g | %.1f | %.1f | %.1f | %.1f | %.4f | %.4f | %.4f | %.2f | %.2f |\n", C, acc[0]/n, acc[1]/n, acc[2]/n, acc[3]/n,
			tm[0]/n, tm[1]/n, tm[2]/n, tm[1]/tm[0], tm[2]/tm[0])
	}
	return nil
}
