package spec

import (
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/registry"
	"github.com/repro-ml/repro/stats"
)

// A trial runs in three pluggable steps, each a registry of its own:
//
//   - a split kind (split: kind) divides the dataset's rows into the pool a
//     trial draws its training rows from and the test part;
//   - a select rule (select: rule) chooses a method's grid point on the
//     trial's training rows;
//   - a protocol (protocol: name) runs the trial — fits, scores — and
//     returns its observations.
//
// Each kind registers once, from the package that executes it (runner),
// with everything about it: the value registered here is the executor's
// (runner.Splitter, runner.Selector, runner.Protocol), which embeds the
// static description this package reads — its doc line, declared params,
// cross-checks, the number of trials it makes, whether it looks at the
// test set — and adds the code that runs it. Decoding, validation,
// NewPlan, `repro list` and docs/spec.md read the static half only, so
// that reading a spec and its results never needs the executor's types.

// Splitters holds the split kinds (given, holdout, rest, train, kfold).
var Splitters = registry.New[SplitKind]("split kind")

// Selectors holds the select rules (fixed, cv, test).
var Selectors = registry.New[SelectRule]("select rule")

// Protocols holds the trial protocols (curve, active).
var Protocols = registry.New[ProtocolKind]("protocol")

// A SplitKind is a registered split kind. Static returns what the
// experiment language knows of it.
type SplitKind interface{ Static() *Splitter }

// A SelectRule is a registered select rule. Static returns what the
// experiment language knows of it.
type SelectRule interface{ Static() *Selector }

// A ProtocolKind is a registered trial protocol. Static returns what the
// experiment language knows of it.
type ProtocolKind interface{ Static() *Protocol }

// Splitter is the static description of a split kind: how a dataset's
// rows divide, for one trial, into the pool training rows are drawn from
// and the test rows.
type Splitter struct {
	// Doc is a one-line description for `repro list` and docs/spec.md.
	Doc string
	// Params declares the keys of the split: section besides kind.
	Params []param.Decl
	// Replicates, if set, returns how many trials the split itself
	// defines (kfold: folds × repeats); the spec's trial count is then
	// that number. Otherwise curve.trials decides.
	Replicates func(p param.Values) int
	// LegacyKey, if set, marks a kind whose trial keys keep the form
	// splits had before they were plugins: the kind and the test size and
	// stratify flag LegacyKey returns (zero for a kind without them), so
	// that results stored before stay valid. Otherwise a key holds the
	// kind and its params.
	LegacyKey func(p param.Values) (test float64, stratify bool)
	// Describe, if set, words the split's params for `repro validate`'s
	// plan (" (test 20%, random)"); otherwise they are listed " {k=v …}".
	Describe func(p param.Values) string
	// Brief, if set, words the split's params in messages, after its
	// kind (" test 50"); otherwise they are listed " {k=v …}".
	Brief func(p param.Values) string
	// Report, if set, words the split's params on a report's Setup
	// (" (test 50, stratified)"); otherwise they are listed " {k=v …}".
	Report func(p param.Values) string
	// InSample marks a kind whose metrics are measured on the training
	// rows themselves (train): reports pair its trials with the plain t-test.
	InSample bool
	// Pool, if set, returns the number of rows a trial draws its training
	// sample from, for reports: rows is the dataset's row count (0 when
	// unknown), nTrain and nTest a trial's training and test rows; 0 when
	// it cannot tell. Otherwise the pool is the rows less the test part.
	Pool func(p param.Values, rows, nTrain, nTest int) int
	// Design, if set, returns how the kind's trials draw their test sets
	// and pools (stats.Design's Scheme, and for folds Folds, Repeats and
	// Refold), which the paired tests and the overlap a report prints
	// follow; reports fill in the rows. Without it the overlap is unknown.
	Design func(p param.Values) stats.Design
}

// Static returns s itself: a *Splitter is a SplitKind, and so is a value
// embedding one.
func (s *Splitter) Static() *Splitter { return s }

// Selector is the static description of a select rule: how a method's
// grid point is chosen in a trial.
type Selector struct {
	// Doc is a one-line description.
	Doc string
	// Chooses reports whether the rule chooses among grid points (cv,
	// test). Under a rule that does not (fixed), every grid point is a
	// variant of its own.
	Chooses bool
	// Oracle marks a rule that looks at the test rows; reports flag it.
	Oracle bool
	// Folds marks a rule that splits each training set into select.folds
	// folds (cv): the only rule folds apply to.
	Folds bool
	// Describe, if set, words the rule's settings for `repro validate`'s
	// plan, after its name (" (5 folds by acc)").
	Describe func(s Select) string
	// Report, if set, words the rule in a report's Setup table, for a
	// method of grid grid points; otherwise its name.
	Report func(s Select, grid int) string
	// Fits returns the number of model fits one choice among candidates
	// grid points costs, the final fit included (for `repro validate`).
	Fits func(candidates int, s Select) int
}

// Static returns s itself: a *Selector is a SelectRule, and so is a value
// embedding one.
func (s *Selector) Static() *Selector { return s }

// Protocol is the static description of a trial protocol: what one trial
// does with its partition.
type Protocol struct {
	// Doc is a one-line description.
	Doc string
	// Params declares the keys of the protocol: section besides name.
	Params []param.Decl
	// PerMethod names the params of Params a method entry may set for
	// its own series (methods[i].protocol): those that change what the
	// method's trials do, never the samples, splits or folds they share
	// with the other series (see Spec.ProtocolParams).
	PerMethod []string
	// PerSize reports that the protocol runs one trial per training size
	// of curve.sizes (curve); otherwise one trial per replicate yields
	// all of its observations (active).
	PerSize bool
	// Steps, if set, returns how many times a trial fits its method (the
	// active protocol's batches); otherwise once. For `repro validate`.
	Steps func(p param.Values) int
	// Implicit marks the protocol a spec runs without saying (curve):
	// trial keys, `repro validate`'s plan and reports leave its name and
	// params out, as before protocols were plugins, so that results
	// stored before stay valid.
	Implicit bool
	// XName, if set, names the x value of the protocol's observations in
	// reports ("number of labelled rows"); otherwise the training size or
	// report.x.
	XName string
	// Sections names the report sections the protocol adds (package
	// reports renders each by its name).
	Sections []string
	// Check, if set, checks the protocol's params against the rest of the
	// spec (`repro validate`), reporting each problem through c.
	Check func(c *Checker)
}

// A Checker is what a kind's static check (Protocol.Check) sees of the
// spec being validated, and how it reports a problem at the spec's
// positions.
type Checker struct {
	// Spec is the decoded spec.
	Spec *Spec
	// Labels are the labels of the spec's methods.
	Labels []string
	// MethodsOK and DatasetsOK report that the methods and the datasets
	// decoded without errors: names are checked against them only then.
	MethodsOK, DatasetsOK bool

	d *decoder
	f *fields
}

// Errorf reports a problem at the node the keys lead to from the top of
// the spec (mapping keys and list indices: "protocol", "full", "2"), under
// the field path path (Sub, Index).
func (c *Checker) Errorf(keys []string, path, format string, args ...any) {
	c.d.errorf(c.d.at(c.f, keys...), path, format, args...)
}

// KeyErrorf reports a problem at the key key of the mapping the keys lead
// to (an entry of a map param), under the field path path.
func (c *Checker) KeyErrorf(keys []string, key, path, format string, args ...any) {
	c.d.errorf(c.d.key(c.d.at(c.f, keys...), key), path, format, args...)
}

// Has reports whether the spec has a node at the keys.
func (c *Checker) Has(keys ...string) bool { return c.d.at(c.f, keys...) != nil }

// UnknownDataset says that id is none of the spec's dataset ids,
// suggesting the closest.
func (c *Checker) UnknownDataset(id string) string {
	ids := make([]string, len(c.Spec.Datasets))
	for i, ds := range c.Spec.Datasets {
		ids[i] = ds.ID
	}
	return unknownDataset(id, ids)
}

// Static returns p itself: a *Protocol is a ProtocolKind, and so is a
// value embedding one.
func (p *Protocol) Static() *Protocol { return p }

// LookupSplitter returns the static description of the split kind name,
// or a *registry.UnknownError.
func LookupSplitter(name string) (*Splitter, error) {
	k, err := Splitters.Lookup(name)
	if err != nil {
		return nil, err
	}
	return k.Static(), nil
}

// LookupSelector returns the static description of the select rule name,
// or a *registry.UnknownError.
func LookupSelector(name string) (*Selector, error) {
	k, err := Selectors.Lookup(name)
	if err != nil {
		return nil, err
	}
	return k.Static(), nil
}

// LookupProtocol returns the static description of the protocol name, or
// a *registry.UnknownError.
func LookupProtocol(name string) (*Protocol, error) {
	k, err := Protocols.Lookup(name)
	if err != nil {
		return nil, err
	}
	return k.Static(), nil
}
