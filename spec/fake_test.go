package spec_test

// The spec tests check the language against the fake plugins of package
// fakeplugin, which the runner's tests share (and against the active
// protocol with its fake strategy); these are the short names they use
// for its fixtures.

import (
	"github.com/repro-ml/repro/internal/fakeplugin"
	_ "github.com/repro-ml/repro/internal/fakeplugin/fakeactive" // fake-first
)

const (
	goodSpec   = fakeplugin.GoodSpec
	seriesSpec = fakeplugin.SeriesSpec
)

var (
	blobsSpec  = fakeplugin.BlobsSpec
	activeSpec = fakeplugin.ActiveSpec
	mustParse  = fakeplugin.MustParse
	planKeys   = fakeplugin.PlanKeys
)
