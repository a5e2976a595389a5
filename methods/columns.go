package methods

import (
	"math/bits"
	"slices"
	"sort"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

// CompactMinAbsent is the fewest columns without a stored entry in the
// training rows for which PresentColumns has a linear model keep weights
// for the present columns alone (they must also be at least half of the
// columns). A weight vector over them costs 8 MB, and a solver holds tens
// of such vectors (L-BFGS's history, TRON's and newGLMNET's work vectors):
// below it the saving is small, and the fits, whose sums over the
// coordinates (assembly dot products with several accumulators) and
// random coordinate orders depend on the positions of the zero columns,
// stay bit for bit those of every experiment run before it existed (the
// widest, the 5-gram matrices of paskov2013, have 12 and 29 million
// columns, but their training rows hold most of them).
const CompactMinAbsent = 1 << 20

// compactWorth reports whether present columns of d are few enough for a
// linear model to keep weights for them alone.
func compactWorth(d, present int) bool {
	absent := d - present
	return absent >= CompactMinAbsent && absent >= present
}

// presentMask returns a bit per column of X, set where a row of X stores
// an entry, and their number; nil when X is dense or narrower than
// CompactMinAbsent (columns are then never dropped).
func presentMask(X matrix.Matrix) ([]uint64, int) {
	_, d := X.Dims()
	if _, dense := X.(*matrix.Dense); dense || d < CompactMinAbsent {
		return nil, d
	}
	mask := make([]uint64, (d+63)/64)
	n := 0
	set := func(j int) {
		if w, b := j/64, uint64(1)<<(j%64); mask[w]&b == 0 {
			mask[w] |= b
			n++
		}
	}
	if c, ok := X.(*matrix.CSR); ok {
		for _, j := range c.Ind {
			set(int(j))
		}
	} else {
		r, _ := X.Dims()
		for i := 0; i < r; i++ {
			X.Row(i, func(j int, _ float64) { set(j) })
		}
	}
	return mask, n
}

// PresentColumns returns the columns of the sparse training matrix X that
// hold a stored entry, in increasing order, when a linear model should
// keep weights for them alone: when the others are at least half of X's
// columns and at least CompactMinAbsent. Otherwise it returns nil (every
// column keeps its weight). Weights of the absent columns would stay 0 in
// an L1, L2 or elastic-net fit, so the model is the same; its memory
// follows the non-zeros instead of the largest index.
func PresentColumns(X matrix.Matrix) []int {
	mask, n := presentMask(X)
	_, d := X.Dims()
	if mask == nil || !compactWorth(d, n) {
		return nil
	}
	cols := make([]int, 0, n)
	for w, word := range mask {
		for ; word != 0; word &= word - 1 {
			cols = append(cols, w*64+bits.TrailingZeros64(word))
		}
	}
	return cols
}

// SelectColumns returns the columns cols (increasing) of X as a new CSR
// matrix, column k of which is X's column cols[k]; X's entries in other
// columns are dropped. Unlike X.ColsOf it allocates nothing over X's
// columns, only over its stored entries.
func SelectColumns(X matrix.Matrix, cols []int) *matrix.CSR {
	r, _ := X.Dims()
	out := &matrix.CSR{R: r, C: len(cols), Ptr: make([]int, r+1)}
	if c, ok := X.(*matrix.CSR); ok {
		out.Ind = make([]int32, 0, len(c.Ind))
		out.Val = make([]float64, 0, len(c.Val))
	}
	for i := 0; i < r; i++ {
		X.Row(i, func(j int, v float64) {
			if k := sort.SearchInts(cols, j); k < len(cols) && cols[k] == j && v != 0 {
				out.Ind = append(out.Ind, int32(k))
				out.Val = append(out.Val, v)
			}
		})
		out.Ptr[i+1] = len(out.Ind)
	}
	return out
}

// CompactColumns returns train restricted to its present columns
// (PresentColumns) and those columns, or train itself and nil when a
// linear model keeps every column. The copy shares Y and the classes;
// column names follow the columns, groups and graphs are dropped (the
// linear models do not read them).
func CompactColumns(train *datasets.Dataset) (*datasets.Dataset, []int) {
	cols := PresentColumns(train.X)
	if cols == nil {
		return train, nil
	}
	c := *train
	c.X = SelectColumns(train.X, cols)
	if train.Features != nil {
		c.Features = make([]string, len(cols))
		for k, j := range cols {
			c.Features[k] = train.Features[j]
		}
	}
	c.Groups, c.Graphs = nil, nil
	return &c, cols
}

// OnColumns returns m, fitted on the columns cols of a d-column training
// set (CompactColumns), as a model over all d columns: its Predict scores
// the rows of X on those columns; X's other columns, which the training
// rows never used, score 0. With cols nil it returns m. The model reports
// m's Info when m has one.
func OnColumns(m Model, d int, cols []int) Model {
	if cols == nil {
		return m
	}
	c := columnsModel{m: m, d: d, cols: slices.Clip(cols)}
	if in, ok := m.(Informer); ok {
		return &columnsInformer{columnsModel: c, in: in}
	}
	return &c
}

type columnsModel struct {
	m    Model
	d    int
	cols []int
}

func (c *columnsModel) Predict(X matrix.Matrix) *Prediction {
	if _, d := X.Dims(); d != c.d {
		panic("methods: Predict: the rows have another number of columns than the training set")
	}
	return c.m.Predict(SelectColumns(X, c.cols))
}

type columnsInformer struct {
	columnsModel
	in Informer
}

func (c *columnsInformer) Info() Info { return c.in.Info() }

// FitCols returns the number of columns a linear model keeps weights for
// on a training set of shape s: Present when PresentColumns drops the
// others, else Cols.
func (s Shape) FitCols() int {
	if s.Present > 0 && compactWorth(s.Cols, s.Present) {
		return s.Present
	}
	return s.Cols
}

// CompactShape returns s as seen by a fit on the present columns alone
// (CompactColumns), with what that costs besides the fit: the mask of
// the present columns, their list, the copy of X and of the predicted
// rows (assumed as dense in entries as the training rows); or s itself
// and 0 when every column is kept.
func (s Shape) CompactShape() (Shape, int64) {
	d := s.FitCols()
	if d == s.Cols {
		return s, 0
	}
	c := s
	c.Cols, c.Present, c.Dense, c.MaxGroup, c.Graphs = d, d, false, 0, nil
	perRow := s.NNZ/max(s.Rows, 1) + 1
	return c, Bytes(int64(s.Cols/8), Floats(d), CSRBytes(s.Rows, s.NNZ), CSRBytes(s.TestRows(), perRow*s.TestRows()))
}
