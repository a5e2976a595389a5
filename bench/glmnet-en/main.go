// Command glmnet-en compares repro's logreg-en (methods/elasticnet) with R's
// glmnet on 20 Newsgroups word counts: the same training rows (the by-date
// training split, of the newsgroups given by -groups, all 20 if empty), the
// same objective (binomial for two groups, else ungrouped multinomial;
// standardize = TRUE, unpenalized intercepts), the same α and λ sequence
// (glmnet's: -nlambda values from λ_max down to -ratio·λ_max, computed by
// repro and passed to both), glmnet's thresh and maxit from -thresh and
// -maxit and repro's tol = thresh. Both fit the whole path -reps times; the
// fastest fit of each is reported (repro's time includes building its
// column store and scales, glmnet's its own standardization).
//
// It prints, at every -every-th λ and at the last, the number of non-zero
// coefficients of each, the largest absolute coefficient difference on the
// original scale (intercepts included, centred over the classes for the
// multinomial model) and on the standardized scale the penalty sees, the
// penalized objective of glmnet's solution minus repro's (positive: repro's
// is lower) and the largest KKT violation of each (Problem.KKT, in λ's
// units); then the largest differences over the path and the time ratio.
//
// It needs Rscript with the glmnet package (Debian: apt-get install
// r-cran-glmnet) and 20news-bydate.tar.gz (REPRO_DATA or -data). It is not
// run by go test.
//
//	go run ./bench/glmnet-en -groups alt.atheism,comp.graphics -alpha 0.5
//	go run ./bench/glmnet-en -groups '' -alpha 0.5 -nlambda 50
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods/elasticnet"
	"github.com/repro-ml/repro/param"
	_ "github.com/repro-ml/repro/plugins"
)

func main() {
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		log.Fatal(err)
	}
}

func run(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("glmnet-en", flag.ContinueOnError)
	dataDir := fs.String("data", os.Getenv(datasets.DataDirEnv), "data directory holding 20news-bydate.tar.gz")
	groups := fs.String("groups", "alt.atheism,comp.graphics", "comma-separated newsgroups (empty: all 20)")
	minDF := fs.Int("mindf", 5, "keep words in at least this many documents (20news min_df)")
	alpha := fs.Float64("alpha", 0.5, "elastic-net mixing α")
	nlambda := fs.Int("nlambda", 100, "length of the λ sequence")
	ratio := fs.Float64("ratio", 0, "λ_min/λ_max (0: glmnet's default)")
	thresh := fs.Float64("thresh", 1e-7, "glmnet's thresh and repro's tol")
	maxit := fs.Int("maxit", 100000, "glmnet's maxit and repro's max_passes")
	reps := fs.Int("reps", 3, "timed path fits of each")
	every := fs.Int("every", 10, "print every this many λ")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of repro's timed fits to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ds, err := load(*dataDir, *groups, *minDF)
	if err != nil {
		return err
	}
	train, _ := ds.SplitRows()
	ds = ds.Subset(train)
	y := make([]int, len(ds.Y))
	for i, v := range ds.Y {
		y[i] = int(v)
	}
	K := len(ds.Classes)
	opt := elasticnet.Options{Alpha: *alpha, Standardize: true, Intercept: true, Tol: *thresh, MaxPasses: *maxit}
	p, err := elasticnet.NewProblem(ds.X, y, K, opt)
	if err != nil {
		return err
	}
	lambdas := p.Sequence(*nlambda, *ratio)
	family := "binomial"
	if K > 2 {
		family = "multinomial"
	}
	fmt.Fprintf(out, "20news by-date train, %d groups, %d documents × %d words (min_df %d, counts), %d non-zeros; %s, α = %g, %d λ from %.4g to %.4g, thresh %g\n",
		K, ds.Rows(), ds.Cols(), *minDF, ds.X.NNZ(), family, *alpha, len(lambdas), lambdas[0], lambdas[len(lambdas)-1], *thresh)
	fmt.Fprintf(out, "%s, %d CPUs, %s\n", runtime.Version(), runtime.NumCPU(), time.Now().Format("2006-01-02"))

	// glmnet first (its process is separate), then repro.
	dir, err := os.MkdirTemp("", "glmnet-en")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := write(dir, ds.X, y, lambdas); err != nil {
		return err
	}
	cmd := exec.Command("Rscript", "bench/glmnet-en/en.R", dir, family, fmt.Sprint(*alpha), fmt.Sprint(*thresh), fmt.Sprint(*maxit), fmt.Sprint(*reps))
	cmd.Stderr = os.Stderr
	rout, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("Rscript (needs r-cran-glmnet): %w", err)
	}
	gsecs, gpasses, want, err := parseR(rout, len(lambdas), p.Classes(), ds.Cols())
	if err != nil {
		return err
	}
	var fits []*elasticnet.Fit
	rsecs := math.Inf(1)
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	for r := 0; r < *reps; r++ {
		start := time.Now()
		p, err = elasticnet.NewProblem(ds.X, y, K, opt)
		if err != nil {
			return err
		}
		fits, err = p.Path(context.Background(), lambdas)
		if err != nil {
			return err
		}
		rsecs = math.Min(rsecs, time.Since(start).Seconds())
	}
	pprof.StopCPUProfile()

	scale := p.Scales()
	fmt.Fprintf(out, "\n| λ | non-zero repro | glmnet | max abs Δβ | max abs Δβ standardized | F(glmnet) − F(repro) | KKT repro | KKT glmnet |\n|---|---|---|---|---|---|---|---|\n")
	var worst, worstStd, worstKKT, worstKKTg float64
	for l, f := range fits {
		g := want[l]
		g.Lambda = f.Lambda
		d, ds := diff(f, g, scale)
		dF := p.Objective(g) - p.Objective(f)
		kr, kg := p.KKT(f), p.KKT(g)
		worst, worstStd = math.Max(worst, d), math.Max(worstStd, ds)
		worstKKT, worstKKTg = math.Max(worstKKT, kr), math.Max(worstKKTg, kg)
		if l%*every == 0 || l == len(fits)-1 {
			fmt.Fprintf(out, "| %.4g | %d | %d | %.2g | %.2g | %.2g | %.2g | %.2g |\n", f.Lambda, nonzero(f), nonzero(g), d, ds, dF, kr, kg)
		}
	}
	fmt.Fprintf(out, "\nover the path: max abs Δβ %.2g (standardized %.2g), largest KKT violation repro %.2g, glmnet %.2g\n", worst, worstStd, worstKKT, worstKKTg)
	passes := 0
	for _, f := range fits {
		passes += f.Passes
	}
	fmt.Fprintf(out, "coordinate-descent passes over the path: repro %d, glmnet %d (its npasses)\n", passes, gpasses)
	fmt.Fprintf(out, "path time (fastest of %d): repro %.3f s, glmnet %.3f s, repro/glmnet %.2f\n", *reps, rsecs, gsecs, rsecs/gsecs)
	return nil
}

func load(dir, groups string, minDF int) (*datasets.Dataset, error) {
	l, err := datasets.Lookup("20news")
	if err != nil {
		return nil, err
	}
	p := param.Defaults(l.Params)
	p["min_df"] = minDF
	p["weighting"] = "count"
	if groups != "" {
		p["groups"] = strings.Split(groups, ",")
	}
	return l.Load(context.Background(), datasets.Env{DataDir: dir}, p)
}

// write stores X as "i j value" triplets (from 1) after a "rows cols" line,
// the labels and the λ sequence for en.R.
func write(dir string, X matrix.Matrix, y []int, lambdas []float64) error {
	var b bytes.Buffer
	r, c := X.Dims()
	fmt.Fprintf(&b, "%d %d\n", r, c)
	for i := 0; i < r; i++ {
		X.Row(i, func(j int, v float64) {
			if v != 0 {
				fmt.Fprintf(&b, "%d %d %s\n", i+1, j+1, strconv.FormatFloat(v, 'g', -1, 64))
			}
		})
	}
	if err := os.WriteFile(filepath.Join(dir, "x.txt"), b.Bytes(), 0o644); err != nil {
		return err
	}
	b.Reset()
	for _, v := range y {
		fmt.Fprintln(&b, v)
	}
	if err := os.WriteFile(filepath.Join(dir, "y.txt"), b.Bytes(), 0o644); err != nil {
		return err
	}
	b.Reset()
	for _, l := range lambdas {
		fmt.Fprintln(&b, strconv.FormatFloat(l, 'g', -1, 64))
	}
	return os.WriteFile(filepath.Join(dir, "lambda.txt"), b.Bytes(), 0o644)
}

// parseR reads en.R's output: the fastest time, glmnet's pass count and
// its fits.
func parseR(b []byte, L, classes, d int) (float64, int, []*elasticnet.Fit, error) {
	K := classes
	if K == 2 {
		K = 1
	}
	fits := make([]*elasticnet.Fit, L)
	for l := range fits {
		fits[l] = &elasticnet.Fit{Beta: make([][]float64, K), Intercept: make([]float64, K)}
		for k := range fits[l].Beta {
			fits[l].Beta[k] = make([]float64, d)
		}
	}
	secs, passes := math.Inf(1), 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 0:
		case f[0] == "P" && len(f) == 2:
			n, err := strconv.Atoi(f[1])
			if err != nil {
				return 0, 0, nil, err
			}
			passes = n
		case f[0] == "T" && len(f) == 2:
			t, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				return 0, 0, nil, err
			}
			secs = math.Min(secs, t)
		case len(f) == 4:
			var n [3]int
			for i := range n {
				v, err := strconv.Atoi(f[i])
				if err != nil {
					return 0, 0, nil, fmt.Errorf("glmnet output %q: %w", sc.Text(), err)
				}
				n[i] = v
			}
			v, err := strconv.ParseFloat(f[3], 64)
			if err != nil {
				return 0, 0, nil, err
			}
			l, k, j := n[0]-1, n[1]-1, n[2]
			if l < 0 || l >= L || k < 0 || k >= K || j < 0 || j > d {
				return 0, 0, nil, fmt.Errorf("glmnet output %q out of range", sc.Text())
			}
			if j == 0 {
				fits[l].Intercept[k] = v
			} else {
				fits[l].Beta[k][j-1] = v
			}
		default:
			return 0, 0, nil, fmt.Errorf("glmnet output: unexpected line %q", sc.Text())
		}
	}
	return secs, passes, fits, sc.Err()
}

// diff returns the largest coefficient difference on the original and on the
// standardized scale, intercepts (centred over the classes) included in
// the first.
func diff(a, b *elasticnet.Fit, scale []float64) (orig, std float64) {
	ca, cb := centred(a.Intercept), centred(b.Intercept)
	for k := range a.Beta {
		orig = math.Max(orig, math.Abs(ca[k]-cb[k]))
		for j, v := range a.Beta[k] {
			d := math.Abs(v - b.Beta[k][j])
			orig = math.Max(orig, d)
			std = math.Max(std, d*scale[j])
		}
	}
	return orig, std
}

func centred(c []float64) []float64 {
	out := append([]float64(nil), c...)
	if len(c) < 2 {
		return out
	}
	m := 0.0
	for _, v := range c {
		m += v / float64(len(c))
	}
	for i := range out {
		out[i] -= m
	}
	return out
}

func nonzero(f *elasticnet.Fit) int {
	n := 0
	for _, b := range f.Beta {
		for _, v := range b {
			if v != 0 {
				n++
			}
		}
	}
	return n
}
