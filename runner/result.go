package runner

// Result is one line of results.jsonl: the outcome of one trial.
type Result struct {
	// Key identifies the trial: a hash of its dataset (plugin, params,
	// transforms, split), method (plugin, label, grid, select rule),
	// size, trial index, experiment seed and sampling.
	Key     string `json:"key"`
	Dataset string `json:"dataset"` // dataset ID
	Method  string `json:"method"`  // method label
	Plugin  string `json:"plugin"`  // method plugin name
	// Variant holds the values of the varying params of a fixed-rule
	// grid point (nil for cv/test rules and single points).
	Variant map[string]any `json:"variant,omitempty"`
	Size    int            `json:"size"`
	Trial   int            `json:"trial"`
	// Chosen holds the grid point a cv or test rule selected.
	Chosen map[string]any `json:"chosen,omitempty"`
	// Oracle marks a selection made on the test set.
	Oracle  bool               `json:"oracle,omitempty"`
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Curve holds the per-budget metrics of a sequential method.
	Curve      []CurvePoint `json:"curve,omitempty"`
	TrainRows  int          `json:"train_rows"`
	TestRows   int          `json:"test_rows"`
	FitSeconds float64      `json:"fit_seconds"`
	// SelectSeconds is the time spent choosing hyperparameters (cv or
	// test rule), excluded from FitSeconds.
	SelectSeconds float64 `json:"select_seconds,omitempty"`
	Iterations    int     `json:"iterations,omitempty"`
	Seeds         Seeds   `json:"seeds"`
	// Artifacts lists the artifact files of this trial, relative to the
	// output directory.
	Artifacts []string `json:"artifacts,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// CurvePoint is one step of a sequential trial's curve.
type CurvePoint struct {
	Size    int                `json:"size"`
	Metrics map[string]float64 `json:"metrics"`
}

// Seeds records the seeds a trial used.
type Seeds struct {
	Sample uint64 `json:"sample"` // training subsample, split and CV folds
	Method uint64 `json:"method"` // the method's own randomness
}

// Failed reports whether the trial ended in an error.
func (r *Result) Failed() bool { return r.Error != "" }
