// Package command provides the command method plugin: an external
// learner — liblinear's or libsvm's programs, a scikit-learn script, R —
// run as one more series of an experiment, on the same training samples,
// folds and test rows as repro's own methods.
//
// The params give two argument vectors, run without a shell: train, which
// reads the training rows repro writes and writes a model file, and
// predict, which reads the model and the rows to predict and writes the
// predictions:
//
//   - name: command
//     label: liblinear-L2
//     params:
//     format: libsvm
//     train: [liblinear-train, -q, -s, "0", -c, "{C}", "{train}", "{model}"]
//     predict: [liblinear-predict, -b, "1", "{test}", "{model}", "{predictions}"]
//     C: [0.01, 0.1, 1, 10]
//     select: {rule: cv, folds: 5}
//
// # Placeholders
//
// An argument may hold placeholders, replaced before the program runs:
//
//   - {train}: the training rows (train only), in the params' format;
//   - {test}: the rows to predict (predict only), in the same format, every
//     label 0 — a program never sees the test labels;
//   - {model}: the model file train writes and predict reads;
//   - {predictions}: the file predict writes (predict only); without it
//     the predictions are read from predict's standard output;
//   - {dir}: the directory the program runs in, its temporary files;
//   - {seed}: the method seed, in [0, 2³¹−1]: the same for the same trial;
//   - {workdir}: the directory repro was started in, for a script named
//     relative to it;
//   - {NAME}: the value of a param NAME that the plugin does not declare:
//     any name of the grid (C, gamma, alpha …), a list of values making a
//     grid axis as for any method.
//
// "{{" and "}}" are literal braces. Classes are written as their indices
// 0 … K−1 in the dataset's class order, and read back the same way.
//
// # Formats
//
// Rows are written as LIBSVM/SVMlight (format: libsvm: "label
// index:value …", 1-based indices, non-zeros only), CSV (format: csv: a
// header "label,x1,…,xd", then every value of a row) or, for a text
// dataset, as the documents themselves (format: jsonl, below). Predictions are read
// as liblinear's and libsvm's predict output (output: labels: one label per
// line; with a first line "labels l1 … lm", from -b 1, each label followed
// by the probabilities of l1 … lm, which become the scores, so that auc is
// defined) or as scores (output: scores: K numbers per line, one for two
// classes (the second class's score) or for regression, separated by
// commas or spaces, after an optional header line).
//
// # Running
//
// Each fit and each prediction runs in a fresh temporary directory (under
// $TMPDIR, named repro-cmd-PID-… for the repro that made it), removed
// afterwards; a run's first program removes the directories that runs no
// longer alive left (a run killed with kill -9). The model file is kept
// in memory between fit and prediction. The program's environment holds
// only PATH (as repro's: the program was looked up on it), TMPDIR (the
// temporary directory) and the entries of env: NAME passes repro's value
// on, NAME=VALUE sets one (OMP_NUM_THREADS=1). Its standard input is
// empty (the null device), its standard error is captured (its end).
//
// A program cannot outlive its run. On Linux it runs under a guard (repro's
// own executable) that dies with repro (a parent-death signal, so kill -9
// of repro included), is a child subreaper (a process the program starts
// stays in its tree even after setsid or a double fork), and kills every
// process left in that tree when the program exits, times out or is
// cancelled. A program is judged on its own exit: exit status 0 succeeds
// even if a child it left held its pipes. Elsewhere the program runs in a
// process group of its own, killed at the timeout. A program that exits
// with a non-zero status (128+N when signal N killed it), or outlives its
// timeout, fails the trial with a *ProgramError quoting the last lines of
// its standard error; the run goes on with the other trials. A fit's
// recorded time is the train program's wall time (methods.FitTimer).
//
// Nothing a program writes is read without a bound. The model file and
// the predictions file must be regular files (not a link, a FIFO or a
// device). The predictions (a file or standard output) may take at most
// 32 bytes per number — (rows+2) × (classes+1) × 32 bytes plus 4 KB — and
// a predict program writing more on standard output is stopped by a broken
// pipe. The model file may take a quarter of memory_mb, or without it 32
// bytes per stored entry of the training set, per row and task, and per
// weight, plus 64 KB. Every prediction must be a finite decimal number:
// Inf, NaN, a hexadecimal float or a number beyond float64 fails the
// trial, naming the line and field.
//
// The memory a fit needs, which `repro run --mem-limit` checks before it
// starts, is memory_mb when given, else an estimate of liblinear's: 16
// bytes per stored entry and per row, and four copies of the weights;
// both add repro's own: the model file's bound (without memory_mb) and
// twice the predictions' bound.
//
// # Documents
//
// With format: jsonl a program receives the raw documents of a text
// dataset (the text plugin, or 20news and imdb, with keep_text: true)
// instead of repro's feature matrix, one JSON object a line: a training
// row {"label": k, "class": "sci.med", "text": "…"} (label the class
// index, class its name; a regression's label is its target), a row to
// predict {"text": "…"}. The same samples, folds and test rows as every
// other method's: a scikit-learn TfidfVectorizer pipeline runs as a
// series beside repro's own vectorizer (experiments/peers/sklearn_text.py).
//
// # Serving many fits from one process
//
// An interpreter's start-up (about a second for Python with scikit-learn)
// paid at every fit makes a grid with inner cross-validation slow. With
// serve, an argument vector, repro starts that program once and sends it
// every fit and prediction instead of running train and predict: one line
// on its standard input per request, the expanded train or predict
// argument vector as a JSON array of strings (exactly the command that
// would have run, its files named by absolute paths), answered by one
// line on its standard output, "ok" or "error: MESSAGE" (the trial fails
// with MESSAGE). Its own messages go to standard error; it exits when its
// standard input closes. It serves one request at a time, each as a fresh
// process would (the seed is in the arguments), so results are those of
// the same experiment without serve. Serve programs are shared by the
// fits of every grid point, fold and trial of the method (one per fit
// running at once), and stopped once idle for 5 s; one that times out,
// exits or answers anything else is killed and replaced. The serve
// argument vector takes only {workdir} and {dir} (its own temporary
// directory); predict must write {predictions}.
//
// # Security
//
// An experiment file with a command method runs programs, as a Makefile
// does: read it before running it. `repro validate` prints every program
// an experiment would run, and `repro run --no-commands` and
// `repro validate --no-commands` refuse an experiment that runs any.
package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/param"
)

func init() {
	methods.RegisterTyped("command", methods.Typed[params]{
		Doc: "an external learner run as a series: train and predict argument vectors (no shell) with placeholders " +
			"{train} {test} {model} {predictions} {dir} {seed} {workdir} and {NAME} for any grid name; rows written as " +
			"LIBSVM, CSV or a text dataset's documents (JSON Lines), predictions read as liblinear/libsvm labels (with -b 1 probabilities) or scores; " +
			"each run in a temporary directory, environment PATH, TMPDIR and env only; serve: one process for every fit",
		Kinds:    methods.Classification | methods.Regression,
		New:      newMethod,
		Validate: validate,
		Memory:   memory,
		Programs: func(p params) [][]string {
			if len(p.Serve) > 0 {
				return [][]string{p.Serve}
			}
			return [][]string{p.Train, p.Predict}
		},
	})
}

// params are the parameters of the command method at one grid point.
type params struct {
	Train    []string `param:"train,nonempty" doc:"the training program and its arguments, run without a shell; placeholders {train} {model} {dir} {seed} {workdir} and {NAME} for a grid name"`
	Predict  []string `param:"predict,nonempty" doc:"the prediction program and its arguments; placeholders {test} {model} {predictions} (else its standard output is read) {dir} {seed} {workdir} and {NAME}"`
	Format   string   `param:"format" enum:"libsvm|csv|jsonl" default:"libsvm" doc:"the rows written: libsvm (SVMlight: label index:value …, 1-based, non-zeros), csv (header label,x1,…,xd, every value) or jsonl (the raw documents of a text dataset: {\"label\": k, \"class\": name, \"text\": …} a line, rows to predict {\"text\": …}); classes as indices 0 … K−1"`
	Output   string   `param:"output" enum:"labels|scores" default:"labels" doc:"the predictions read: labels (liblinear/libsvm predict output: a label per line, with -b 1 a \"labels …\" header and probabilities) or scores (K numbers per line, one for two classes or regression, comma or space separated)"`
	Timeout  float64  `param:"timeout" range:"(0, +inf)" default:"3600" doc:"seconds a program may run before it is killed (with the processes it started), failing its trial"`
	Env      []string `param:"env,unique" default:"[]" doc:"environment besides PATH and TMPDIR: NAME passes repro's value on, NAME=VALUE sets one"`
	MemoryMB float64  `param:"memory_mb" range:"[0, +inf)" default:"0" doc:"the memory of a fit in MB, for --mem-limit: the program's peak and the model file repro keeps, at most a quarter of it; 0: estimated as liblinear's (16 bytes per stored entry and row, 4 copies of the weights), a model file of at most 32 bytes per stored entry, row and weight"`
	Serve    []string `param:"serve,omitdefault" default:"[]" doc:"a program serving every fit and prediction in one process: it reads train's and predict's expanded argument vectors, one JSON array a line, on its standard input and answers each with a line ok or error: MESSAGE (placeholders {workdir} {dir}; predict then needs {predictions})"`
	// Vars holds the values of the grid names: every parameter besides
	// the declared ones, passed to the programs as {NAME}.
	Vars map[string]string `param:",free" doc:"a grid value, passed to the programs as the placeholder {NAME}"`
}

// decls declares the parameters of params.
var decls = param.Of[params]().Params

// method is the command method at one grid point.
type method struct {
	train, predict []string
	format, output string
	timeout        time.Duration
	env            []string
	vars           map[string]string // the grid names' values
	memoryMB       float64
	serve          []string // the serve program's argument vector, nil to run each program
}

func newMethod(p params) (methods.Method, error) {
	if err := validate(p); err != nil {
		return nil, err
	}
	m := &method{
		train: p.Train, predict: p.Predict,
		format: p.Format, output: p.Output,
		timeout:  time.Duration(p.Timeout * float64(time.Second)),
		env:      p.Env,
		vars:     map[string]string{},
		memoryMB: p.MemoryMB,
	}
	if len(p.Serve) > 0 {
		m.serve = p.Serve
	}
	for name, v := range p.Vars {
		m.vars[name] = v
	}
	return m, nil
}

// freeNames returns the names of p's grid values, sorted.
func freeNames(p params) []string {
	out := make([]string, 0, len(p.Vars))
	for name := range p.Vars {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// validate checks the argument vectors' programs and placeholders, the
// grid names and the environment entries.
func validate(p params) error {
	var errs []error
	free := freeNames(p)
	known := map[string]bool{}
	for _, n := range free {
		known[n] = true
	}
	used := map[string]bool{}
	for _, phase := range []string{"train", "predict", "serve"} {
		argv := p.Train
		switch phase {
		case "predict":
			argv = p.Predict
		case "serve":
			argv = p.Serve
		}
		if len(argv) == 0 {
			continue // the declaration reports it
		}
		if prog := argv[0]; strings.ContainsAny(prog, "{}") {
			errs = append(errs, param.InvalidElem(phase, 0, "program %q has a placeholder; want the program's name or absolute path as written", prog))
		} else if !filepath.IsAbs(prog) && strings.ContainsRune(prog, filepath.Separator) {
			errs = append(errs, param.InvalidElem(phase, 0, "program %q is a relative path (programs run in a temporary directory); want a name looked up on PATH, or an absolute path (or {workdir}/… as an argument of an interpreter)", prog))
		}
		for i, a := range argv {
			ps, err := parseArg(a)
			if err != nil {
				errs = append(errs, param.InvalidElem(phase, i, "%v", err))
				continue
			}
			for _, pc := range ps {
				if pc.name == "" {
					continue
				}
				if phase == "serve" {
					if pc.name != phWorkdir && pc.name != phDir {
						errs = append(errs, param.InvalidElem(phase, i, "{%s}: the serve program starts once for many fits; want only {workdir} and {dir} (the fits' files and grid values reach it in train's and predict's arguments)", pc.name))
					}
					continue
				}
				used[pc.name] = true
				if only, ok := phaseOnly[pc.name]; ok && only != phase {
					errs = append(errs, param.InvalidElem(phase, i, "{%s} is a placeholder of %s only; want it there", pc.name, only))
				} else if !known[pc.name] && !isBuiltin(pc.name) {
					errs = append(errs, param.InvalidElem(phase, i, "%s", unknownPlaceholder(pc.name, phase, free)))
				}
			}
		}
		if phase == "train" && !placeholders(argv)[phTrain] {
			errs = append(errs, param.Invalid(phase, "no {train}: the program would not see the training rows; want {train} in an argument"))
		}
		if phase == "predict" {
			if !placeholders(argv)[phTest] {
				errs = append(errs, param.Invalid(phase, "no {test}: the program would not see the rows to predict; want {test} in an argument"))
			}
			if tr := p.Train; placeholders(argv)[phModel] && len(tr) > 0 && !placeholders(tr)[phModel] {
				errs = append(errs, param.Invalid(phase, "reads {model}, which train does not write; want {model} in train's arguments too"))
			}
			if len(p.Serve) > 0 && !placeholders(argv)[phPredictions] {
				errs = append(errs, param.Invalid(phase, "no {predictions}, with serve: the serve program's standard output answers repro; want {predictions} in an argument, the file the predictions are written to"))
			}
		}
	}
	for _, n := range free {
		switch {
		case !isName(n):
			errs = append(errs, param.Invalid(n, "is not a placeholder name; want a declared parameter (%s) or a grid name of letters, digits and _", strings.Join(param.Names(decls), ", ")))
		case isBuiltin(n):
			errs = append(errs, param.Invalid(n, "is the built-in placeholder {%s}; want another name for a grid value", n))
		case !used[n]:
			msg := fmt.Sprintf("unused: neither train nor predict has {%s}; want a declared parameter (%s) or a grid name used as a placeholder", n, strings.Join(param.Names(decls), ", "))
			if c := param.Closest(n, param.Names(decls)); c != "" {
				msg = fmt.Sprintf("unused: neither train nor predict has {%s} (did you mean %q?); want a declared parameter or a grid name used as a placeholder", n, c)
			}
			errs = append(errs, param.Invalid(n, "%s", msg))
		}
	}
	env := p.Env
	for i, e := range env {
		if name, _, _ := strings.Cut(e, "="); !isName(name) {
			errs = append(errs, param.InvalidElem("env", i, "%q is not NAME or NAME=VALUE; want an environment variable's name (letters, digits, _)", e))
		}
	}
	return errors.Join(errs...)
}

func isBuiltin(name string) bool {
	for _, b := range builtins {
		if b == name {
			return true
		}
	}
	return false
}

// unknownPlaceholder says what is wrong with {name} in phase's arguments.
func unknownPlaceholder(name, phase string, free []string) string {
	var cands []string
	for _, b := range builtins {
		if only, ok := phaseOnly[b]; !ok || only == phase {
			cands = append(cands, b)
		}
	}
	cands = append(cands, free...)
	msg := fmt.Sprintf("unknown placeholder {%s}", name)
	c := param.Closest(name, cands)
	for _, f := range cands {
		if strings.EqualFold(f, name) {
			c = f // {c} for {C}: too short for an edit distance
		}
	}
	if c != "" {
		msg += fmt.Sprintf(" (did you mean {%s}?)", c)
	}
	braced := make([]string, len(cands))
	for i, c := range cands {
		braced[i] = "{" + c + "}"
	}
	return msg + "; want one of " + strings.Join(braced, ", ") + ", or a param of the grid named " + name
}

// memory is the plugin's Memory estimate.
func memory(s methods.Shape, p params) int64 {
	// repro's side: the scores read and kept, the predictions read (twice:
	// the bytes and their lines), the model file kept, a dense row for
	// CSV, the program's stderr.
	// memory_mb covers the model file (bounded by a quarter of it).
	preds := predictionBound(s.TestRows(), s.Classes)
	own := methods.Bytes(methods.Floats(s.TestRows(), max(s.Classes, 1), 2), 2*preds, methods.Floats(s.Cols), 2*stderrKeep)
	if mb := p.MemoryMB; mb > 0 {
		return methods.Bytes(int64(mb*1e6), own)
	}
	model := modelBound(0, s.NNZ, s.Rows, s.Cols, s.Tasks())
	return methods.Bytes(methods.Floats(s.NNZ+s.Rows, 2), methods.Floats(s.Cols+1, s.Tasks(), 4), model, own)
}

// ext is the extension of the row files of format.
func ext(format string) string { return "." + format }

// baseVars returns the placeholders' values common to both programs.
func (m *method) baseVars(dir string, seed uint64) map[string]string {
	vars := map[string]string{phDir: dir, phSeed: strconv.FormatUint(seed>>33, 10), phModel: filepath.Join(dir, "model")}
	if wd, err := os.Getwd(); err == nil {
		vars[phWorkdir] = wd
	}
	for k, v := range m.vars {
		vars[k] = v
	}
	return vars
}

// exec runs argv, the expanded train or predict argument vector, in dir:
// as a program of its own, or as a request to the serve program. It
// returns the wall time.
func (m *method) exec(ctx context.Context, phase string, argv []string, dir string, stdout io.Writer) (float64, error) {
	if m.serve != nil {
		return m.request(ctx, phase, argv)
	}
	return run(ctx, phase, argv, dir, environment(m.env, dir), m.timeout, stdout)
}

// Fit writes train's rows and runs the train program on them.
func (m *method) Fit(ctx context.Context, train *datasets.Dataset, env *methods.Env) (methods.Model, error) {
	dir, err := tempDir()
	if err != nil {
		return nil, fmt.Errorf("command: %w", err)
	}
	defer os.RemoveAll(dir)
	seed := uint64(0)
	if env != nil {
		seed = env.Seed
	}
	vars := m.baseVars(dir, seed)
	vars[phTrain] = filepath.Join(dir, "train"+ext(m.format))
	if err := writeRows(vars[phTrain], m.format, rows{X: train.X, Y: train.Y, Text: train.Text, Classes: train.Classes}); err != nil {
		return nil, fmt.Errorf("command: writing the training rows: %w", err)
	}
	argv, err := expand(m.train, vars)
	if err != nil {
		return nil, fmt.Errorf("command: train: %w", err)
	}
	secs, err := m.exec(ctx, "train", argv, dir, nil)
	if err != nil {
		return nil, err
	}
	mod := &model{m: m, ctx: ctx, seed: seed, seconds: secs}
	if train.IsClassification() {
		mod.classes = len(train.Classes)
	}
	if placeholders(m.train)[phModel] {
		tasks := 1
		if mod.classes > 2 {
			tasks = mod.classes
		}
		bound := modelBound(m.memoryMB, train.X.NNZ(), train.Rows(), train.Cols(), tasks)
		if mod.file, err = readRegular(vars[phModel], "model file {model}", bound, modelHint); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("train program %s wrote no model file {model}: %w", argv[0], err)
			}
			return nil, fmt.Errorf("train program %s: %w", argv[0], err)
		}
	}
	return mod, nil
}

// model is a fitted command: the model file train wrote, kept in memory
// for the predict program.
type model struct {
	m       *method
	ctx     context.Context // the fit's: cancelling the trial stops predict too
	file    []byte          // the model file, nil if train has no {model}
	seed    uint64
	seconds float64 // the train program's wall time
	classes int     // K, 0 for regression
}

// FitSeconds returns the train program's wall time (methods.FitTimer).
func (mod *model) FitSeconds() float64 { return mod.seconds }

// Predict returns PredictErr's prediction, nil if it failed.
func (mod *model) Predict(X matrix.Matrix) *methods.Prediction {
	p, _ := mod.PredictErr(X)
	return p
}

// PredictErr predicts the rows of X (methods.ErrPredictor): format jsonl,
// which needs the documents, fails here; PredictSet passes them.
func (mod *model) PredictErr(X matrix.Matrix) (*methods.Prediction, error) {
	return mod.PredictSet(&datasets.Dataset{X: X})
}

// PredictSet writes the rows of set (and its documents, for format
// jsonl) and the model file, runs the predict program and reads its
// predictions (methods.SetPredictor).
func (mod *model) PredictSet(set *datasets.Dataset) (*methods.Prediction, error) {
	m := mod.m
	dir, err := tempDir()
	if err != nil {
		return nil, fmt.Errorf("command: %w", err)
	}
	defer os.RemoveAll(dir)
	vars := m.baseVars(dir, mod.seed)
	vars[phTest] = filepath.Join(dir, "test"+ext(m.format))
	vars[phPredictions] = filepath.Join(dir, "predictions")
	n, _ := set.X.Dims()
	if err := writeRows(vars[phTest], m.format, rows{X: set.X, Text: set.Text}); err != nil {
		return nil, fmt.Errorf("command: writing the rows to predict: %w", err)
	}
	if mod.file != nil {
		if err := os.WriteFile(vars[phModel], mod.file, 0o600); err != nil {
			return nil, fmt.Errorf("command: %w", err)
		}
	}
	argv, err := expand(m.predict, vars)
	if err != nil {
		return nil, fmt.Errorf("command: predict: %w", err)
	}
	ctx := mod.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	bound := predictionBound(n, mod.classes)
	fromFile := placeholders(m.predict)[phPredictions]
	var out *capped
	var stdout io.Writer
	if !fromFile {
		out = &capped{max: bound}
		stdout = out
	}
	if _, err := m.exec(ctx, "predict", argv, dir, stdout); err != nil {
		if out != nil && out.total > out.max { // killed by its broken pipe
			return nil, fmt.Errorf("predict program %s wrote %w", argv[0], out.over(fmt.Sprintf("its predictions on standard output for %d rows", n)))
		}
		return nil, err
	}
	var b []byte
	where := "standard output"
	if fromFile {
		where = "predictions file {predictions}"
		if b, err = readRegular(vars[phPredictions], where, bound, predictionsHint); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("predict program %s wrote no predictions: %w", argv[0], err)
			}
			return nil, fmt.Errorf("predict program %s: %w", argv[0], err)
		}
	} else {
		if err := out.over(fmt.Sprintf("its predictions on standard output for %d rows", n)); err != nil {
			return nil, fmt.Errorf("predict program %s wrote %w", argv[0], err)
		}
		b = out.buf
	}
	read := readLabels
	if m.output == outputScores {
		read = readScores
	}
	p, err := read(bytes.NewReader(b), n, mod.classes)
	if err != nil {
		return nil, fmt.Errorf("predict program %s: %s (output: %s): %w", argv[0], where, m.output, err)
	}
	return p, nil
}
