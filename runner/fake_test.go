package runner

// The runner's tests run on the fake plugins of package fakeplugin, which
// the spec tests share; these are the short names they use for its
// fixtures.

import "github.com/repro-ml/repro/internal/fakeplugin"

type centroid = fakeplugin.Centroid

const (
	goodSpec   = fakeplugin.GoodSpec
	seriesSpec = fakeplugin.SeriesSpec
)

var (
	method     = fakeplugin.Method
	blobsSpec  = fakeplugin.BlobsSpec
	activeSpec = fakeplugin.ActiveSpec
	mustParse  = fakeplugin.MustParse
	planKeys   = fakeplugin.PlanKeys
)
