package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/lexicon"
	"github.com/repro-ml/repro/matrix"
)

func init() {
	datasets.RegisterTypedTransform("lexicon-classes", datasets.TypedTransform[classesParams]{
		Doc:     "feature classes: one virtual feature per lexicon class (positive, negative), every feature of the class linked to it with weight 1; optional dissimilarity edge between the classes",
		Apply:   applyLexiconClasses,
		Version: 1,
	})
}

// classesParams are the parameters of lexicon-classes; the choices of lexicon are
// lexicon.Names().
type classesParams struct {
	Lexicon             string   `param:"lexicon" enum:"afinn|bing" default:"bing" doc:"embedded sentiment lexicon (SentiWordNet is not available)"`
	Classes             []string `param:"classes" default:"[positive negative]" doc:"lexicon classes, each a virtual feature in this order"`
	MinScore            float64  `param:"min_score" range:"(0, +inf)" default:"1" doc:"a word is in a class if its polarity is ≥ min_score (positive) or ≤ −min_score (negative); AFINN scores are −5…5"`
	Dissimilarity       bool     `param:"dissimilarity" default:"false" doc:"add a dissimilarity edge between every two classes' virtual features (Graphs[dissimilarity])"`
	DissimilarityWeight float64  `param:"dissimilarity_weight" range:"(0, +inf)" default:"1" doc:"weight of the dissimilarity edges"`
}

func applyLexiconClasses(_ context.Context, _ datasets.Env, d *datasets.Dataset, p classesParams) (*datasets.Dataset, error) {
	lex := p.Lexicon
	all, err := lexicon.Classes(lex, p.MinScore)
	if err != nil {
		return nil, fmt.Errorf("lexicon-classes: %w", err)
	}
	names := p.Classes
	if len(names) == 0 {
		return nil, fmt.Errorf("lexicon-classes: no classes")
	}
	members := make([]map[string]bool, len(names))
	for c, name := range names {
		words, ok := all[name]
		if !ok {
			return nil, fmt.Errorf("lexicon-classes: lexicon %q has no class %q (has %s, %s)", lex, name, lexicon.Positive, lexicon.Negative)
		}
		members[c] = map[string]bool{}
		for _, w := range words {
			members[c][w] = true
		}
	}
	if d.Features == nil {
		return nil, fmt.Errorf("lexicon-classes: dataset %q has no feature names to look up in the lexicon", d.Name)
	}
	w, q, sizes := FeatureClasses(d.Cols(), d.Graphs[Feature], d.Graphs[Dissimilarity], func(j, c int) bool { return members[c][d.Features[j]] }, len(names), p.Dissimilarity, p.DissimilarityWeight)
	if total := sumInts(sizes); total == 0 {
		return nil, fmt.Errorf("lexicon-classes: no feature of dataset %q is a word of the %s lexicon's classes %s (the virtual features would have no links)", d.Name, lex, strings.Join(names, ", "))
	}
	out := withGraphs(d)
	out.Graphs[Feature] = w
	if q != nil {
		out.Graphs[Dissimilarity] = q
	}
	setStats(out)
	parts := make([]string, len(names))
	for c, name := range names {
		out.Stats["graph.class."+name] = float64(sizes[c])
		parts[c] = fmt.Sprintf("%s %d", name, sizes[c])
	}
	note := fmt.Sprintf("feature classes (%s lexicon, |score| ≥ %v; SentiWordNet unavailable): one virtual feature per class, each member feature linked to it with weight 1; members: %s",
		lex, p.MinScore, strings.Join(parts, ", "))
	if p.Dissimilarity {
		note += fmt.Sprintf("; dissimilarity edges of weight %v between the classes' virtual features", p.DissimilarityWeight)
	}
	out.Notes = append(out.Notes, note)
	return out, nil
}

// FeatureClasses adds v = classes virtual features to a feature graph over
// d columns: every column j with member(j, c) gets a link of weight 1 to
// the virtual feature of class c (a column in several classes links to each;
// row normalization then splits its weight). Virtual features have no
// out-links. The virtual features are numbered after those of the given
// graph w (nil: none, D = d), whose links are kept. With dissimilar, the
// dissimilarity graph q (nil: none) gets links of weight dw in both
// directions between every two classes' virtual features; otherwise it is
// only resized. It returns the new graphs and each class's member count.
func FeatureClasses(d int, w, q *matrix.CSR, member func(j, c int) bool, classes int, dissimilar bool, dw float64) (*matrix.CSR, *matrix.CSR, []int) {
	base := d
	if w != nil {
		base = w.R
	}
	n := base + classes
	sizes := make([]int, classes)
	b := matrix.NewBuilder(n)
	for j := 0; j < n; j++ {
		if w != nil && j < w.R {
			w.Row(j, func(l int, v float64) { b.Add(l, v) })
		}
		if j < d {
			for c := 0; c < classes; c++ {
				if member(j, c) {
					b.Add(base+c, 1)
					sizes[c]++
				}
			}
		}
		b.EndRow()
	}
	nw := b.Build()
	var nq *matrix.CSR
	if q != nil || dissimilar {
		qb := matrix.NewBuilder(n)
		for j := 0; j < n; j++ {
			if q != nil && j < q.R {
				q.Row(j, func(l int, v float64) { qb.Add(l, v) })
			}
			if dissimilar && j >= base {
				for c := 0; c < classes; c++ {
					if base+c != j {
						qb.Add(base+c, dw)
					}
				}
			}
			qb.EndRow()
		}
		nq = qb.Build()
	}
	return nw, nq, sizes
}

func sumInts(a []int) int {
	s := 0
	for _, v := range a {
		s += v
	}
	return s
}
