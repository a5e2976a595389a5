// Package plugins links every plugin built into repro: each imported package
// registers its methods, datasets, transforms or metrics from init, as image
// formats do. The repro command imports it, and so do the tests that check
// every registered plugin (internal/conformance), so the build and the
// conformance suite see the same plugins. A new plugin package adds one line
// here.
package plugins

import (
	_ "github.com/repro-ml/repro/datasets/compress"
	_ "github.com/repro-ml/repro/datasets/corpus"
	_ "github.com/repro-ml/repro/datasets/csv"
	_ "github.com/repro-ml/repro/datasets/embedded"
	_ "github.com/repro-ml/repro/datasets/graph"
	_ "github.com/repro-ml/repro/datasets/libsvm"
	_ "github.com/repro-ml/repro/datasets/linqs"
	_ "github.com/repro-ml/repro/datasets/normalize"
	_ "github.com/repro-ml/repro/datasets/reduce"
	_ "github.com/repro-ml/repro/datasets/relabel"
	_ "github.com/repro-ml/repro/datasets/standardize"
	_ "github.com/repro-ml/repro/datasets/subsample"
	_ "github.com/repro-ml/repro/datasets/text"
	_ "github.com/repro-ml/repro/datasets/uci"
	_ "github.com/repro-ml/repro/methods/command"
	_ "github.com/repro-ml/repro/methods/ddr"
	_ "github.com/repro-ml/repro/methods/elasticnet"
	_ "github.com/repro-ml/repro/methods/fnr"
	_ "github.com/repro-ml/repro/methods/hp"
	_ "github.com/repro-ml/repro/methods/lasso"
	_ "github.com/repro-ml/repro/methods/lgc"
	_ "github.com/repro-ml/repro/methods/linear"
	_ "github.com/repro-ml/repro/methods/med"
	_ "github.com/repro-ml/repro/methods/pcapair"
	_ "github.com/repro-ml/repro/methods/spectral"
	_ "github.com/repro-ml/repro/methods/svm"
	_ "github.com/repro-ml/repro/metric"
	_ "github.com/repro-ml/repro/protocols/active"
)
