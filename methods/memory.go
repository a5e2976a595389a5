package methods

import (
	"math"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// Shape is what a memory estimate (Plugin.Memory) knows of a fit: the
// sizes of the training set and of what the model will predict, not their
// values, so that it costs nothing to compute.
type Shape struct {
	Rows int // training rows
	Cols int // feature columns
	// NNZ is the number of stored entries of X: Rows·Cols when Dense.
	NNZ   int
	Dense bool // X is a matrix.Dense, not a CSR
	// Classes is the number of classes, 0 for regression.
	Classes int
	// Test is the number of rows the model will predict (0: unknown).
	Test int
	// MaxGroup is the number of columns of the largest of the dataset's
	// groups, 0 without groups.
	MaxGroup int
	// Graphs are the sizes of the dataset's feature graphs, by name.
	Graphs map[string]GraphShape
	// Present is the number of columns holding a stored entry of a
	// sparse X at least CompactMinAbsent columns wide (FitCols), else 0.
	Present int
}

// GraphShape is the size of a feature graph: Nodes×Nodes (or wider, with
// virtual features) with Edges stored entries.
type GraphShape struct {
	Nodes, Edges int
}

// ShapeOf returns the shape of a fit on train whose model predicts test
// rows.
func ShapeOf(train *datasets.Dataset, test int) Shape {
	r, c := train.X.Dims()
	_, dense := train.X.(*matrix.Dense)
	s := Shape{Rows: r, Cols: c, NNZ: train.X.NNZ(), Dense: dense, Test: test}
	if mask, n := presentMask(train.X); mask != nil {
		s.Present = n
	}
	if train.IsClassification() {
		s.Classes = len(train.Classes)
	}
	for _, g := range train.Groups {
		s.MaxGroup = max(s.MaxGroup, len(g.Columns))
	}
	if len(train.Graphs) > 0 {
		s.Graphs = make(map[string]GraphShape, len(train.Graphs))
		for name, g := range train.Graphs {
			s.Graphs[name] = GraphShape{Nodes: max(g.R, g.C), Edges: g.NNZ()}
		}
	}
	return s
}

// Graph returns the shape of the graph called name, or, when the dataset
// has none by that name (the fit then fails on its own), a graph over the
// columns without edges.
func (s Shape) Graph(name string) GraphShape {
	if g, ok := s.Graphs[name]; ok {
		return g
	}
	return GraphShape{Nodes: s.Cols}
}

// Tasks returns the number of weight vectors a linear classifier keeps:
// one for two classes (or regression), else one per class.
func (s Shape) Tasks() int {
	if s.Classes > 2 {
		return s.Classes
	}
	return 1
}

// TestRows returns Test, or Rows when Test is unknown.
func (s Shape) TestRows() int {
	if s.Test > 0 {
		return s.Test
	}
	return s.Rows
}

// Floats returns the bytes of a float64 (or int) array with the product
// of dims elements, saturating at math.MaxInt64 rather than overflowing.
func Floats(dims ...int) int64 {
	n := int64(8)
	for _, d := range dims {
		n = mulSat(n, int64(max(d, 0)))
	}
	return n
}

// Bytes returns the sum of sizes, saturating at math.MaxInt64.
func Bytes(sizes ...int64) int64 {
	var t int64
	for _, b := range sizes {
		if b > math.MaxInt64-t {
			return math.MaxInt64
		}
		t += max(b, 0)
	}
	return t
}

func mulSat(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// CSRBytes returns the bytes of a CSR matrix with rows rows and nnz stored
// entries (Ptr, and 12 bytes an entry: its int32 Ind and float64 Val): what
// a copy, a transpose (rows = the columns) or a conversion of a dense
// matrix costs.
func CSRBytes(rows, nnz int) int64 { return Bytes(Floats(rows+1), Times(nnz, 12)) }

// CSRCopy returns what matrix.ToCSR(X) allocates for X of shape s: nothing
// for a CSR, a sparse copy of a dense matrix.
func (s Shape) CSRCopy() int64 {
	if !s.Dense {
		return 0
	}
	return CSRBytes(s.Rows, s.NNZ)
}

// DefaultMemory is the estimate for a plugin that declares no Memory: as
// if the fit made a dense copy of X, an n×n kernel matrix, twenty vectors
// over the rows and over the columns, and scored the test rows against
// every training row. It is deliberately high: a plugin with large inputs
// declares its own.
func DefaultMemory(s Shape) int64 {
	return Bytes(Floats(s.Rows, s.Cols), Floats(s.Rows, s.Rows), Floats(20, s.Rows+s.Cols), Floats(s.TestRows(), s.Rows))
}

// FitOverhead is the memory MemoryOf adds to every estimate for what a
// fit allocates whatever its shape: the memo's keys, closures, small
// structs and gonum's bookkeeping.
const FitOverhead = 256 << 10

// MemoryOf returns the estimate of p's Memory, or DefaultMemory(s) when p
// declares none, for a fit of shape s at the grid point v, plus
// FitOverhead.
func (p *Plugin) MemoryOf(s Shape, v param.Values) int64 {
	if p.Memory == nil {
		return Bytes(DefaultMemory(s), FitOverhead)
	}
	return Bytes(p.Memory(s, v), FitOverhead)
}

// Times returns k·b bytes, saturating at math.MaxInt64.
func Times(k int, b int64) int64 { return mulSat(int64(max(k, 0)), max(b, 0)) }
