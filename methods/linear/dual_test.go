package linear

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/embedded"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// TestStreamOrder checks that streamOrder gives a permutation of the rows
// for sizes around its number of streams; that every stream is read in row
// order from its start, wrapping round; that consecutive rows of the order
// come from different streams (each round deals one row of every stream);
// and that the epochs differ.
func TestStreamOrder(t *testing.T) {
	for _, n := range []int{1, 2, 7, dualStreams - 1, dualStreams, dualStreams + 1, 1000, 4099} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			order, perm := make([]int32, n), make([]int32, min(dualStreams, n))
			b := min(dualStreams, n)
			// The stream of row i: the largest s with ⌊s·n/b⌋ ≤ i.
			streamOf := func(i int) int { return ((i+1)*b - 1) / n }
			var prev []int32
			for epoch := range 3 {
				streamOrder(rng, order, perm)
				seen := make([]bool, n)
				last := make(map[int]int) // stream → its last row
				for k, i32 := range order {
					i := int(i32)
					if i < 0 || i >= n || seen[i] {
						t.Fatalf("epoch %d: order[%d] = %d repeats or is out of range", epoch, k, i)
					}
					seen[i] = true
					s := streamOf(i)
					if j, ok := last[s]; ok && i != j+1 && i != s*n/b {
						t.Fatalf("epoch %d: stream %d reads row %d after row %d", epoch, s, i, j)
					}
					last[s] = i
					if k > 0 && k%b != 0 && n >= b && streamOf(int(order[k-1])) == s && n%b == 0 {
						t.Fatalf("epoch %d: rows %d and %d of the order are both of stream %d", epoch, k-1, k, s)
					}
				}
				if prev != nil && n > 2 && fmt.Sprint(prev) == fmt.Sprint(order) {
					t.Errorf("epoch %d repeats the order before it", epoch)
				}
				prev = append(prev[:0], order...)
			}
		})
	}
}

// TestDualStreamedOrder fits logreg-l2's dual solver with its rows read in
// runs (streamOrder, forced on a problem small enough for the uniform
// order) and checks that it meets the solver's stopping rule and reaches
// the uniform order's optimum, on the DNA splice data as a dense and as a
// sparse matrix.
func TestDualStreamedOrder(t *testing.T) {
	dna, err := embedded.DNASplice([]string{"ei", "ie", "n"}, embedded.EncodingBits)
	if err != nil {
		t.Fatal(err)
	}
	sparse := *dna
	sparse.X = matrix.ToCSR(dna.X)
	for _, tc := range []struct {
		name string
		d    *datasets.Dataset
	}{{"dense", dna}, {"sparse", &sparse}} {
		for _, C := range []float64{1, 10} {
			t.Run(fmt.Sprintf("%s/C=%g", tc.name, C), func(t *testing.T) {
				p := map[string]any{"C": C, "solver": "dual", "intercept": false}
				uniform := fitEnv(t, "logreg-l2", p, tc.d, &methods.Env{})
				defer func(b int64) { dualStreamBytes = b }(dualStreamBytes)
				dualStreamBytes = 0
				streamed := fitEnv(t, "logreg-l2", p, tc.d, &methods.Env{})
				if !streamed.info.Converged {
					t.Fatalf("streamed order: not converged after %d epochs", streamed.info.Iterations)
				}
				if v := optimality("logreg-l2", streamed, tc.d, C, false); v > 1e-5 {
					t.Errorf("streamed order: optimality violation %g > 1e-5", v)
				}
				if rel := math.Abs(streamed.info.Objective-uniform.info.Objective) / uniform.info.Objective; rel > 1e-6 {
					t.Errorf("objective %.10g streamed, %.10g uniform (relative difference %.2g)", streamed.info.Objective, uniform.info.Objective, rel)
				}
				if fmt.Sprint(streamed.W) == fmt.Sprint(uniform.W) {
					t.Error("the streamed fit is the uniform one: the order was not changed")
				}
				t.Logf("epochs: uniform %d, streamed %d", uniform.info.Iterations, streamed.info.Iterations)
			})
		}
	}
}
