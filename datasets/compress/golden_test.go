package compress_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets/compress"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from the current code")

// resultHash returns SHA-256 digests (hex, first 16 bytes) of a result's
// features — the dictionary and every document's counts — and of its
// solution statistics: the pointers, the storage costs' bits, the ADMM
// iterations of each round and the factorizations. Equal features
// digests mean bit-identical features; equal statistics digests mean
// the same iterates, as far as these sums show.
func resultHash(res *compress.Result) (features, stats string) {
	h := sha256.New()
	put := func(v uint64) { binary.Write(h, binary.LittleEndian, v) }
	put(uint64(len(res.Dictionary)))
	for _, s := range res.Dictionary {
		put(uint64(len(s)))
		h.Write([]byte(s))
	}
	put(uint64(res.X.R))
	put(uint64(res.X.C))
	for _, v := range res.X.Ptr {
		put(uint64(v))
	}
	for _, v := range res.X.Ind {
		put(uint64(v))
	}
	for _, v := range res.X.Val {
		put(math.Float64bits(v))
	}
	features = fmt.Sprintf("%x", h.Sum(nil)[:16])
	h = sha256.New()
	for _, v := range []int{res.Words, res.Candidates, res.Pointers, res.Factorizations} {
		put(uint64(v))
	}
	for _, v := range []float64{res.LowerBound, res.Relaxed, res.Binary} {
		put(math.Float64bits(v))
	}
	for _, n := range res.Iterations {
		put(uint64(n))
	}
	stats = fmt.Sprintf("%x", h.Sum(nil)[:16])
	return features, stats
}

// goldenCorpora returns the corpora of TestGolden: prose and random
// documents at several k and λ (always), and every 16th document of 20
// Newsgroups (unless -short, and when the paper data is there).
func goldenCorpora(t *testing.T) []goldenCase {
	prose := `The binary constraint makes the problem non-convex. We solve it
approximately via a series of related convex problems that converge to a good
optimum. Each problem relaxes the binary constraint and solves a weighted
optimization problem. The binary constraint makes the problem hard; the relaxed
problem is a linear program, and the linear program is solved by ADMM.`
	rng := rand.New(rand.NewPCG(33, 3))
	words := strings.Fields("a b c d e f g h")
	random := func(n, maxLen, v int) []string {
		docs := make([]string, n)
		for i := range docs {
			w := make([]string, rng.IntN(maxLen+1))
			for j := range w {
				w[j] = words[rng.IntN(v)]
			}
			docs[i] = strings.Join(w, " ")
		}
		return docs
	}
	cases := []goldenCase{
		{"prose k=5 λ=0.03", strings.Split(prose, "."), compress.Options{Lambda: 0.03}},
		{"prose k=3 λ=1", strings.Split(prose, "\n"), compress.Options{K: 3, Lambda: 1}},
		{"random 40 k=5 λ=0.5", random(40, 60, 5), compress.Options{Lambda: 0.5}},
		{"random 300 k=5 λ=0.03", random(300, 80, 8), compress.Options{Lambda: 0.03}},
		{"random 200 k=4 λ=2 tol=1e-4", random(200, 40, 3), compress.Options{K: 4, Lambda: 2, Tol: 1e-4}},
	}
	if !testing.Short() {
		d := newsgroups(t)
		cases = append(cases, goldenCase{"20news every 16th k=5 λ=0.03", slice(d.Text, 16), compress.Options{Lambda: 0.03}})
	}
	return cases
}

type goldenCase struct {
	name string
	docs []string
	o    compress.Options
}

// TestGolden compresses the corpora of goldenCorpora and compares the
// digests of their features and statistics with testdata/golden.txt,
// written by the code before the speed-ups of issue 33 (-update rewrites
// it): a change for speed must leave the output bit for bit the same.
func TestGolden(t *testing.T) {
	file := filepath.Join("testdata", "golden.txt")
	want := map[string]string{}
	if !*update {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			name, digests, ok := strings.Cut(sc.Text(), "\t")
			if ok {
				want[name] = digests
			}
		}
		f.Close()
	}
	var lines []string
	for _, c := range goldenCorpora(t) {
		res, err := compress.Compress(context.Background(), c.docs, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		f, s := resultHash(res)
		got := f + " " + s
		lines = append(lines, c.name+"\t"+got)
		if *update {
			continue
		}
		if w, ok := want[c.name]; !ok {
			t.Errorf("%s: not in %s", c.name, file)
		} else if got != w {
			t.Errorf("%s: features and statistics digests %s; want %s (%s)", c.name, got, w, file)
		}
	}
	if *update {
		if testing.Short() {
			t.Fatal("-update needs the whole test (not -short)")
		}
		slices.Sort(lines)
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
