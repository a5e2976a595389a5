package conformance_test

// The plugins under test: the same blank imports as the root's plugins.go
// (package main, which cannot be imported). TestImportsMatchPlugins keeps
// the two lists equal.
import (
	_ "github.com/repro-ml/repro/datasets/csv"
	_ "github.com/repro-ml/repro/datasets/embedded"
	_ "github.com/repro-ml/repro/datasets/graph"
	_ "github.com/repro-ml/repro/datasets/libsvm"
	_ "github.com/repro-ml/repro/datasets/linqs"
	_ "github.com/repro-ml/repro/datasets/text"
	_ "github.com/repro-ml/repro/datasets/uci"
	_ "github.com/repro-ml/repro/methods/fnr"
	_ "github.com/repro-ml/repro/methods/hp"
	_ "github.com/repro-ml/repro/methods/lasso"
	_ "github.com/repro-ml/repro/methods/lgc"
	_ "github.com/repro-ml/repro/methods/linear"
	_ "github.com/repro-ml/repro/methods/med"
	_ "github.com/repro-ml/repro/methods/spectral"
	_ "github.com/repro-ml/repro/methods/svm"
	_ "github.com/repro-ml/repro/metric"
)
