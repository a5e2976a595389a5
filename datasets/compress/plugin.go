package compress

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

func init() {
	datasets.RegisterTypedTransform("compress", datasets.TypedTransform[compressParams]{
		Doc:        "compressive features (Paskov et al. 2013): the k-grams a joint lossless compression of the corpus uses, counted per document (reweighted LP relaxations by ADMM, rounded)",
		Apply:      applyCompress,
		DataMemory: compressMemory,
		Learns:     true,
		Version:    1,
	})
	datasets.RegisterTypedTransform("kgrams", datasets.TypedTransform[kgramsParams]{
		Doc:        "bag of k-grams: every k-gram of up to k words counted per document (compress with every pointer kept)",
		Apply:      applyKGrams,
		DataMemory: kgramsMemory,
		Learns:     true,
		Version:    1,
	})
}

// kgramsParams are the parameters of kgrams; the range of k ends at MaxK.
type kgramsParams struct {
	K      int    `param:"k" range:"[1, 16]" default:"5" doc:"longest k-gram, in words (the paper: 5)"`
	Tokens string `param:"tokens,omitdefault" enum:"letters|digits|apostrophes|punctuation" default:"letters" doc:"what a word is (the paper does not say): letters, runs of ASCII letters case-folded ([a-z]+); digits, runs of letters and digits; apostrophes, letters with an apostrophe between two letters kept (don't); punctuation, runs of letters and each other printable ASCII character but digits a word of its own"`
}

// compressParams are the parameters of compress.
type compressParams struct {
	kgramsParams
	Lambda  float64 `param:"lambda" range:"[0, 1000000]" default:"0.03" doc:"pointer cost λ, uniform (the paper: 0 … 5, 0.03 for Figs. 2 and 4); the dictionary cost of a string is its length in words (cost)"`
	Cost    string  `param:"cost,omitdefault" enum:"words|characters" default:"words" doc:"unit of a string's dictionary cost: words, its length in words (the paper's text: \"each substring's dictionary cost was its word length\"), or characters, the letters of its words (the paper's Fig. 1 counts characters)"`
	Epsilon float64 `param:"epsilon" range:"[1e-06, 1000]" default:"0.1" doc:"reweighting ε: D = max{1, 1/(w + ε)} (the paper does not give it)"`
	Rounds  int     `param:"rounds" range:"[1, 50]" default:"3" doc:"relaxed problems solved: the first unweighted, each next reweighted from the last"`
	Tol     float64 `param:"tol" range:"[1e-12, 0.5]" default:"0.001" doc:"ADMM tolerance on the primal and dual residuals (relative, and absolute per √pointers)"`
	MaxIter int     `param:"max_iter" range:"[1, +inf)" default:"1000" doc:"ADMM iterations per round at most"`
}

// docsOf returns d's documents, or an error saying how to keep them.
func docsOf(d *datasets.Dataset) ([]string, error) {
	if d.Text == nil {
		return nil, fmt.Errorf("dataset %q has no documents (Dataset.Text): load a text dataset with keep_text: true", d.Name)
	}
	if len(d.Text) != d.Rows() {
		return nil, fmt.Errorf("dataset %q: %d documents for %d rows", d.Name, len(d.Text), d.Rows())
	}
	return d.Text, nil
}

// withFeatures returns d with its features replaced by x: the rows,
// targets, split and documents are kept; column-level information (groups,
// graphs) is dropped, as it described the old columns.
func withFeatures(d *datasets.Dataset, x *matrix.CSR, names []string) *datasets.Dataset {
	out := *d
	out.X, out.Features = x, names
	out.Groups, out.Graphs = nil, nil
	out.Stats = maps.Clone(d.Stats)
	if out.Stats == nil {
		out.Stats = map[string]float64{}
	}
	out.Notes = append([]string(nil), d.Notes...)
	return &out
}

func applyCompress(ctx context.Context, _ datasets.Env, d *datasets.Dataset, p compressParams) (*datasets.Dataset, error) {
	docs, err := docsOf(d)
	if err != nil {
		return nil, fmt.Errorf("compress: %w", err)
	}
	o := Options{K: p.K, Lambda: p.Lambda, Cost: p.Cost, Tokens: p.Tokens, Epsilon: p.Epsilon, Rounds: p.Rounds, Tol: p.Tol, MaxIter: p.MaxIter}
	res, err := Compress(ctx, docs, o)
	if err != nil {
		return nil, fmt.Errorf("compress: %w", err)
	}
	out := withFeatures(d, res.X, res.Dictionary)
	st := out.Stats
	st["compress.dictionary"] = float64(len(res.Dictionary))
	st["compress.words"] = float64(res.Words)
	st["compress.candidates"] = float64(res.Candidates)
	st["compress.pointers"] = float64(res.Pointers)
	st["compress.objective.lower_bound"] = res.LowerBound
	st["compress.objective.relaxed"] = res.Relaxed
	st["compress.objective.binary"] = res.Binary
	st["compress.objective.ratio"] = ratio(res.Binary, res.Relaxed)
	for i, it := range res.Iterations {
		st["compress.admm_iterations.round"+strconv.Itoa(i+1)] = float64(it)
	}
	// The dictionary by string length, and the pointers by the length
	// of the string they use: how far the features are from unigrams.
	strs, ptrs := make([]float64, o.K+1), make([]float64, o.K+1)
	for _, n := range res.Lengths {
		strs[n]++
	}
	for k, j := range res.X.Ind {
		ptrs[res.Lengths[j]] += res.X.Val[k]
	}
	for n := 1; n <= o.K; n++ {
		st["compress.dictionary.k"+strconv.Itoa(n)] = strs[n]
		st["compress.pointers.k"+strconv.Itoa(n)] = ptrs[n]
	}
	st["compress.factorizations"] = float64(res.Factorizations)
	st["compress.seconds"] = res.Seconds
	out.Notes = append(out.Notes, fmt.Sprintf(
		"compressive features (Paskov et al. 2013): the %d documents (%d words: %s) compressed jointly without labels, k-grams up to %d, pointer cost λ = %v, dictionary cost = length in %s; %d reweighted relaxations (ε = %v) solved by ADMM (tol %v, iterations %v), rounded: %d pointers, dictionary of %d strings; storage cost binary %.6g vs relaxed %.6g (ratio %.4f; first relaxation: %.6g)",
		d.Rows(), res.Words, p.Tokens, o.K, o.Lambda, o.Cost, o.Rounds, o.Epsilon, o.Tol, res.Iterations, res.Pointers, len(res.Dictionary),
		res.Binary, res.Relaxed, st["compress.objective.ratio"], res.LowerBound))
	return out, nil
}

// ratio returns a/b, 1 when both are 0.
func ratio(a, b float64) float64 {
	if a == b {
		return 1
	}
	return a / b
}

func applyKGrams(ctx context.Context, _ datasets.Env, d *datasets.Dataset, p kgramsParams) (*datasets.Dataset, error) {
	docs, err := docsOf(d)
	if err != nil {
		return nil, fmt.Errorf("kgrams: %w", err)
	}
	x, names, err := KGrams(ctx, docs, p.K, p.Tokens)
	if err != nil {
		return nil, fmt.Errorf("kgrams: %w", err)
	}
	out := withFeatures(d, x, names)
	out.Stats["kgrams.features"] = float64(len(names))
	out.Notes = append(out.Notes, fmt.Sprintf("bag of k-grams: every k-gram of up to %d words (%s) counted per document (words joined by _): %d features", p.K, p.Tokens, len(names)))
	return out, nil
}
