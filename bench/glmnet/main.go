// Command glmnet compares repro's lasso (methods/lasso) with R's glmnet on UCI
// abalone: the same standardization (population standard deviation), the
// same objective (1/2n)‖y − b − Xβ‖² + λ‖β‖₁ and λ values, glmnet's thresh
// and maxit from -thresh and -maxit. It prints, per λ, the largest absolute
// coefficient difference (original scale, intercept included), the objective
// of glmnet's coefficients minus repro's on repro's standardized design
// (positive: repro's solution is lower), the largest KKT violation of each
// solution (LassoKKT, in λ's units), both fit times (mean of 20 fits each) and
// their ratio, and the number of non-zero coefficients.
//
// With -drop F|I|M one sex dummy is left out: the three dummies sum to the
// intercept column, so with all three the centred design has a null
// direction and the lasso solution need not be unique; without one of
// them the design has full column rank and the problem is strictly convex.
//
// It needs Rscript with the glmnet package (Debian: apt-get install
// r-cran-glmnet) and the abalone data (REPRO_DATA or -data). It installs
// nothing and is not run by go test.
//
//	go run ./bench/glmnet -data ../shared/data/paper   (or set REPRO_DATA)
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods/lasso"
	"github.com/repro-ml/repro/methods/lsq"
)

func main() {
	dataDir := flag.String("data", os.Getenv("REPRO_DATA"), "data directory holding uci/abalone/abalone.data")
	thresh := flag.String("thresh", "1e-12", "glmnet's thresh")
	maxit := flag.String("maxit", "100000", "glmnet's maxit")
	drop := flag.String("drop", "none", "sex dummy to leave out: F, I, M or none")
	flag.Parse()
	file := filepath.Join(*dataDir, "uci", "abalone", "abalone.data")
	X, y, err := readAbalone(file, *drop)
	if err != nil {
		log.Fatal(err)
	}
	lambdas := []string{"0.5", "0.1", "0.02", "0.005", "0.001", "0.0001"}
	out, err := exec.Command("Rscript", append([]string{"bench/glmnet/glmnet.R", file, *thresh, *maxit, *drop}, lambdas...)...).Output()
	if err != nil {
		log.Fatalf("Rscript (needs r-cran-glmnet): %v", err)
	}
	fmt.Printf("glmnet thresh=%s maxit=%s, dropped dummy: %s\n", *thresh, *maxit, *drop)
	fmt.Printf("%-8s %-10s %-11s %-10s %-10s %-11s %-11s %-7s %s\n", "lambda", "max|Δβ|", "F(glmnet)-F", "KKT repro", "KKT glmnet", "repro (s)", "glmnet (s)", "ratio", "non-zero")
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		lam, _ := strconv.ParseFloat(f[0], 64)
		rsecs, _ := strconv.ParseFloat(f[1], 64)
		want := make([]float64, len(f)-2)
		for i := range want {
			want[i], _ = strconv.ParseFloat(f[i+2], 64)
		}
		const reps = 20
		start := time.Now()
		var beta []float64
		var b0, dF, kktR, kktG float64
		nz := 0
		for r := 0; r < reps; r++ {
			ds, err := lsq.NewDesign(X, y, true, true)
			if err != nil {
				log.Fatal(err)
			}
			sol, err := lasso.SolveLasso(context.Background(), ds, lasso.Path(lasso.LambdaMax(ds), lam, 20), nil, lasso.Options{})
			if err != nil {
				log.Fatal(err)
			}
			beta, b0 = ds.Coefficients(sol.Beta)
			gstd := make([]float64, len(beta))
			for j := range gstd {
				gstd[j] = want[j+1] * ds.Scale[j]
			}
			dF = lasso.LassoObjective(ds, gstd, lam) - sol.Objective
			kktR, kktG = lasso.LassoKKT(ds, sol.Beta, lam), lasso.LassoKKT(ds, gstd, lam)
		}
		gsecs := time.Since(start).Seconds() / reps
		diff := math.Abs(b0 - want[0])
		for j, b := range beta {
			diff = math.Max(diff, math.Abs(b-want[j+1]))
			if b != 0 {
				nz++
			}
		}
		fmt.Printf("%-8g %-10.2g %-11.2g %-10.2g %-10.2g %-11.3g %-11.3g %-7.3g %d\n", lam, diff, dF, kktR, kktG, gsecs, rsecs, rsecs/gsecs, nz)
	}
}

// readAbalone reads sex as F, I, M dummies (minus drop) and the 7
// measurements.
func readAbalone(path, drop string) (*matrix.Dense, []float64, error) {
	dummies := map[string]int{"F": 0, "I": 1, "M": 2}
	skip, ok := dummies[drop]
	if !ok {
		if drop != "none" {
			return nil, nil, fmt.Errorf("abalone: -drop %q: want F, I, M or none", drop)
		}
		skip = -1
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("abalone: %w", err)
	}
	var data, y []float64
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(strings.TrimSpace(line), ",")
		if len(f) != 9 {
			return nil, nil, fmt.Errorf("abalone: line %d: %d fields", i+1, len(f))
		}
		row := []float64{}
		for _, name := range []string{"F", "I", "M"} {
			if dummies[name] == skip {
				continue
			}
			v := 0.0
			if f[0] == name {
				v = 1
			}
			row = append(row, v)
		}
		for _, s := range f[1:8] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("abalone: line %d: %w", i+1, err)
			}
			row = append(row, v)
		}
		t, err := strconv.ParseFloat(f[8], 64)
		if err != nil {
			return nil, nil, fmt.Errorf("abalone: line %d: %w", i+1, err)
		}
		data, y = append(data, row...), append(y, t)
	}
	return matrix.NewDense(len(y), len(data)/len(y), data), y, nil
}
