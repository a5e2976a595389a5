// Package csv is repro's loader of delimited text tables (CSV, UCI .data
// files, whitespace-separated columns) into a dense Dataset.
//
// The plugin registers as "csv":
//
//	datasets:
//	  - name: csv
//	    params:
//	      file: uci/abalone/abalone.data
//	      header: false
//	      columns: [sex, length, diameter, height, whole, shucked, viscera, shell, rings]
//	      label: rings
//	      task: regression
//	      categorical: [sex]
//	      groups: {size: "length,diameter,height", weight: "whole,shucked,viscera,shell"}
//	      group_order: [sex, size, weight]
//
// Every column other than the label and the dropped ones becomes a feature,
// in file order; a categorical column becomes one 0/1 dummy feature per
// value, named "col=value", in sorted value order, and forms a group of its
// own. Values "?" and "" are missing; the missing parameter says whether
// they are an error, drop their rows, or are replaced by the column mean.
// Features are never rescaled: scaling is the methods' business.
//
// The means and the dummies' category sets are computed over every row
// read, and recorded (Dataset.Prep) for the runner to refit on the
// training rows of each trial (datasets.Refit): there a missing value
// gets its column's mean over the training rows, and a category absent
// from them leaves every dummy of its column zero, so that nothing of a
// trial's test rows informs its features.
//
// A test_file parameter names a second table of the same columns (with
// its own header line when header is true) whose rows form the test part
// of the given split (split: {kind: given}), as the libsvm plugin's does;
// both tables are read as one, so the classes are those of all their
// rows (the dummies and imputed means are refitted per trial, above).
//
// Numbers are decimal (1, -2.5e3, .5): the forms strconv.ParseFloat also
// reads but a data file does not mean — hexadecimal floats (0x1p3),
// digits separated by underscores (1_000), NaN and Inf — are errors at
// their line (under task: auto, a hexadecimal or underscored label too).
// Column names and categorical values must be valid UTF-8.
package csv

import (
	"context"
	stdcsv "encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/internal/tabio"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/param"
)

// The missing-value policies.
const (
	MissingError    = "error"     // a missing value is an error naming file and line
	MissingDropRows = "drop-rows" // rows with a missing value are left out
	MissingMean     = "mean"      // a missing feature value is replaced by the column mean
)

// The tasks.
const (
	TaskAuto           = "auto" // classification when some label is not a number
	TaskClassification = "classification"
	TaskRegression     = "regression"
)

// Whitespace is the sep value that splits fields on runs of spaces and tabs.
const Whitespace = "whitespace"

// Options says how Read turns a table into a Dataset. The zero value is not
// useful; start from DefaultOptions.
type Options struct {
	// Label is the label column: a column name, or, when no column has that
	// name, an integer index (0 = first column, -1 = last).
	Label string
	// Header says the first line names the columns.
	Header bool
	// Columns names the columns when the file has no header (or overrides it).
	Columns []string
	// Sep is the field separator: one character, or Whitespace.
	Sep string
	// Task is TaskAuto, TaskClassification or TaskRegression.
	Task string
	// Categorical lists the columns to one-hot encode.
	Categorical []string
	// Drop lists columns to leave out.
	Drop []string
	// Missing is MissingError, MissingDropRows or MissingMean. Under
	// MissingMean a missing categorical value gives each of the column's
	// dummies its mean over the other rows (refitted on a trial's
	// training rows by the runner); a missing label is an error
	// unless rows are dropped.
	Missing string
	// Groups maps a group name to comma-separated column names; a categorical
	// column named in a group contributes all its dummies.
	Groups map[string]string
	// GroupOrder orders Dataset.Groups; see Read.
	GroupOrder []string
	// Classes keeps only the rows of these classes, in this class order.
	Classes []string
	// MinClasses is the fewest classes a classification table may hold:
	// DefaultOptions sets 2, so that a file whose rows are all one class
	// fails at load time; a reader of one part of a split (where a part
	// may be one class) lowers it.
	MinClasses int
}

// DefaultOptions returns the options of the csv plugin's defaults.
func DefaultOptions() Options {
	return Options{Header: true, Sep: ",", Task: TaskAuto, Missing: MissingError, MinClasses: 2}
}

// Params are the csv plugin's parameters. The choices of task and
// missing are the Task and Missing constants.
type Params struct {
	File        string            `param:"file" doc:"table file, relative to the data directory (.gz read transparently)"`
	Label       string            `param:"label" doc:"label column: a name, or an integer index (0 first, -1 last)"`
	Header      bool              `param:"header" default:"true" doc:"the first line names the columns"`
	Columns     []string          `param:"columns" default:"[]" doc:"column names when the file has no header (or to override it)"`
	Sep         string            `param:"sep" default:"," doc:"field separator: one character, or \"whitespace\" for runs of spaces/tabs"`
	Task        string            `param:"task" enum:"auto|classification|regression" default:"auto" doc:"auto: classification when some label is not a number"`
	Categorical []string          `param:"categorical" default:"[]" doc:"columns one-hot encoded (dummies col=value in sorted value order), each its own group"`
	Drop        []string          `param:"drop" default:"[]" doc:"columns left out"`
	Missing     string            `param:"missing" enum:"error|drop-rows|mean" default:"error" doc:"what to do with \"?\" and empty values"`
	Groups      map[string]string `param:"groups" default:"{}" doc:"feature groups: name → comma-separated column names"`
	GroupOrder  []string          `param:"group_order" default:"[]" doc:"order of the groups (declared and categorical); default: categorical in column order, then declared by name"`
	Classes     []string          `param:"classes" default:"[]" doc:"keep only rows of these classes, in this class order"`
	TestFile    string            `param:"test_file,omitdefault" default:"" doc:"optional second table of the same columns whose rows form the test part of the given split"`
}

// Options returns the Options of p.
func (p Params) Options() Options {
	return Options{
		Label:       p.Label,
		Header:      p.Header,
		Columns:     p.Columns,
		Sep:         p.Sep,
		Task:        p.Task,
		Categorical: p.Categorical,
		Drop:        p.Drop,
		Missing:     p.Missing,
		Groups:      p.Groups,
		GroupOrder:  p.GroupOrder,
		Classes:     p.Classes,
		MinClasses:  2,
	}
}

func init() {
	datasets.RegisterTyped("csv", datasets.TypedLoader[Params]{
		Doc:   "a delimited text table (CSV, UCI .data, whitespace columns) as a dense dataset (optionally with a test table: the given split)",
		Files: files,
		Memory: func(env datasets.Env, p Params) int64 {
			est := int64(0)
			for _, f := range files(p) {
				est += loadMemory(env, f, p.Sep)
			}
			return est
		},
		Load: func(ctx context.Context, env datasets.Env, p Params) (*datasets.Dataset, error) {
			var paths []string
			for k, f := range files(p) {
				path, err := env.Path(f, "the experiment's csv "+[]string{"file", "test_file"}[k]+" parameter")
				if err != nil {
					return nil, err
				}
				paths = append(paths, path)
			}
			if len(paths) == 2 {
				return LoadGiven(paths[0], paths[1], p.Options())
			}
			return Load(paths[0], p.Options())
		},
	})
}

// What Load holds at once, per byte of its input and per field: the
// records' fields as strings, then the matrix of their values, the
// records dropped only when the matrix is built. Fitted by TestLoadMemory
// on tables of short and long numbers (3.6 per byte and 26 per field;
// 7.7 and 17 live bytes per byte of the file),
// with a margin. A categorical column of many values makes more columns
// than its fields suggest; its dataset's measured size then charges the
// run's budget.
const (
	perInputByte = 6
	perField     = 36
)

// loadMemory estimates the memory Load holds reading file (in env's data
// directory) with separator sep: its size uncompressed, and its fields
// counted in its first 256 KB. 0 where it cannot be read (Load says why).
func loadMemory(env datasets.Env, file, sep string) int64 {
	n, head := datasets.InputHead(env, file, 256<<10)
	if len(head) == 0 {
		return 0
	}
	fields := int64(0)
	for i, c := range head {
		switch {
		case c == '\n':
			fields++
		case sep == Whitespace && (c == ' ' || c == '\t'):
			if i+1 < len(head) && head[i+1] != ' ' && head[i+1] != '\t' {
				fields++
			}
		case len(sep) == 1 && c == sep[0]:
			fields++
		}
	}
	return 1<<20 + perInputByte*n + perField*fields*n/int64(len(head))
}

// files returns the data files the plugin reads at p (`repro data`).
func files(p Params) []string {
	if p.TestFile != "" {
		return []string{p.File, p.TestFile}
	}
	return []string{p.File}
}

// Load reads the table at path (gunzipped when it ends in .gz).
func Load(path string, o Options) (*datasets.Dataset, error) {
	f, err := tabio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return collected(Read(f, path, o))
}

// collected returns d and err after a collection when the records read
// for d — a string of at least 16 bytes per field — were large
// (tabio.Collect): they are garbage once d is built.
func collected(d *datasets.Dataset, err error) (*datasets.Dataset, error) {
	if err != nil {
		return nil, err
	}
	r, c := d.X.Dims()
	tabio.Collect(int64(r) * int64(c+1) * 16)
	return d, nil
}

// LoadGiven reads a training table and a test table of the same columns
// (each with its header line when o.Header) into one dataset whose given
// split (Dataset.Split) marks the test table's rows. The two are read as
// one table: the classes, the categorical dummies and the means imputed
// are those of all the rows.
func LoadGiven(trainPath, testPath string, o Options) (*datasets.Dataset, error) {
	var srcs []source
	for _, path := range []string{trainPath, testPath} {
		f, err := tabio.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		srcs = append(srcs, source{f, path})
	}
	return collected(read(srcs, o))
}

// source is one table file read into a dataset, and its name in errors.
type source struct {
	r    io.Reader
	file string
}

type record struct {
	line   int
	fields []string
	file   string // the file it was read from
	test   bool   // from the test table (LoadGiven)
}

func readRecords(r io.Reader, file, sep string) ([]record, error) {
	var recs []record
	r = tabio.SkipBOM(r)
	if sep == Whitespace {
		err := tabio.Lines(r, file, func(line int, text string) error {
			if f := strings.Fields(text); len(f) > 0 {
				recs = append(recs, record{line: line, fields: f, file: file})
			}
			return nil
		})
		return recs, err
	}
	runes := []rune(sep)
	if len(runes) != 1 || runes[0] == '"' || runes[0] == '\n' || runes[0] == '\r' {
		return nil, fmt.Errorf("%s: separator %q: want one character or %q", file, sep, Whitespace)
	}
	cr := stdcsv.NewReader(r)
	cr.Comma = runes[0]
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	for {
		fields, err := cr.Read()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			var pe *stdcsv.ParseError
			if errors.As(err, &pe) {
				return nil, tabio.Errorf(file, pe.Line, "%v", pe.Err)
			}
			last := 0
			if len(recs) > 0 {
				last = recs[len(recs)-1].line
			}
			return nil, fmt.Errorf("%s: reading the record after line %d: %w", file, last, err)
		}
		line, _ := cr.FieldPos(0)
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		recs = append(recs, record{line: line, fields: fields, file: file})
	}
}

// countTrue returns how many of 0, 1, …, n−1 satisfy f.
func countTrue(n int, f func(int) bool) int {
	c := 0
	for j := 0; j < n; j++ {
		if f(j) {
			c++
		}
	}
	return c
}

// IsMissing reports whether a field is a missing value ("?" or empty).
func IsMissing(s string) bool { return s == "?" || s == "" }

// parseNumber parses a finite decimal number as tabio.ParseFinite does:
// "0x1p3" and "1_000" are not numbers (auto task: class labels).
func parseNumber(s string) (float64, bool) {
	f, err := tabio.ParseFinite(s)
	return f, err == nil
}

// Read parses a table from r; file names it in errors, which give the line
// and what was expected.
//
// Dataset.Groups holds the categorical columns' groups and the declared
// groups. With GroupOrder empty they come categorical first, in column
// order, then declared groups sorted by name (a Go map has no order); a
// non-empty GroupOrder must name every group exactly once. A categorical
// column named inside a declared group forms no group of its own.
func Read(r io.Reader, file string, o Options) (*datasets.Dataset, error) {
	return read([]source{{r, file}}, o)
}

// read reads the tables of srcs as one; the rows of a second are the
// test part of the given split.
func read(srcs []source, o Options) (*datasets.Dataset, error) {
	if o.Sep == "" {
		o.Sep = ","
	}
	file := srcs[0].file // where the columns are named
	var recs []record
	names := o.Columns
	headerLine := 0 // the line the column names come from, 0 if none
	for k, src := range srcs {
		rs, err := readRecords(src.r, src.file, o.Sep)
		if err != nil {
			return nil, err
		}
		if o.Header {
			if len(rs) == 0 {
				return nil, tabio.Errorf(src.file, 0, "empty file, want a header line")
			}
			if k == 0 && len(names) == 0 {
				names, headerLine = rs[0].fields, rs[0].line
				for j, n := range names {
					if err := tabio.CheckUTF8("header: column name", n); err != nil {
						return nil, tabio.Errorf(file, rs[0].line, "%v", err)
					}
					if n == "" {
						hint := ""
						if j == len(names)-1 {
							hint = " (a trailing separator?)"
						}
						return nil, tabio.Errorf(file, rs[0].line, "header: column %d has no name%s", j+1, hint)
					}
				}
			} else if k > 0 && len(o.Columns) == 0 && !slices.Equal(rs[0].fields, names) {
				return nil, tabio.Errorf(src.file, rs[0].line, "header %s, want the columns of %s: %s", strings.Join(rs[0].fields, ","), file, strings.Join(names, ","))
			}
			rs = rs[1:]
		}
		if len(rs) == 0 {
			if o.Header {
				return nil, tabio.Errorf(src.file, 0, "no data rows after the header line")
			}
			return nil, tabio.Errorf(src.file, 0, "no data rows (empty file)")
		}
		if k > 0 {
			for i := range rs {
				rs[i].test = true
			}
		}
		recs = append(recs, rs...)
	}
	if len(names) == 0 {
		names = make([]string, len(recs[0].fields))
		for j := range names {
			names[j] = "x" + strconv.Itoa(j+1)
		}
	}
	whole := file // the table in errors about all its rows
	if len(srcs) > 1 {
		whole = file + " and " + srcs[1].file
	}
	col := map[string]int{}
	for j, n := range names {
		if _, dup := col[n]; dup {
			return nil, tabio.Errorf(file, headerLine, "column name %q appears twice", n)
		}
		col[n] = j
	}
	for _, rc := range recs {
		if len(rc.fields) != len(names) {
			return nil, tabio.Errorf(rc.file, rc.line, "%d fields, want %d (%s; separator %q)", len(rc.fields), len(names), strings.Join(names, ","), o.Sep)
		}
	}
	label, err := labelColumn(o.Label, col, len(names))
	if err != nil {
		return nil, param.Invalid("label", "%s: %v", whole, err)
	}
	// lookup finds element i of the list param what; a column not found
	// is reported at that element.
	lookup := func(what string, i int, n string) (int, error) {
		j, ok := col[n]
		if !ok {
			msg := fmt.Sprintf("column %q not found in %s", n, whole)
			if s := param.Closest(n, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return 0, param.InvalidElem(what, i, "%s; want columns of the table: %s", msg, strings.Join(names, ", "))
		}
		if j == label {
			return 0, param.InvalidElem(what, i, "column %q of %s is the label; want a feature column", n, whole)
		}
		return j, nil
	}
	dropped := make([]bool, len(names))
	for i, n := range o.Drop {
		j, err := lookup("drop", i, n)
		if err != nil {
			return nil, err
		}
		dropped[j] = true
	}
	categorical := make([]bool, len(names))
	for i, n := range o.Categorical {
		j, err := lookup("categorical", i, n)
		if err != nil {
			return nil, err
		}
		if dropped[j] {
			return nil, fmt.Errorf("%s: column %q is both categorical and dropped", file, n)
		}
		categorical[j] = true
	}
	used := func(j int) bool { return j != label && !dropped[j] }
	// Errors about the columns as a whole are at the header line, or at
	// the first row without a header.
	columnsLine := headerLine
	if columnsLine == 0 {
		columnsLine = recs[0].line
	}
	if countTrue(len(names), used) == 0 {
		why := fmt.Sprintf("the table has only the label column %q", names[label])
		if len(names) > 1 {
			why = fmt.Sprintf("every column other than the label %q is dropped", names[label])
		}
		return nil, tabio.Errorf(file, columnsLine, "no feature columns: %s; a dataset needs at least one", why)
	}

	// Rows: missing labels, missing features under drop-rows.
	missing := o.Missing
	if missing == "" {
		missing = MissingError
	}
	kept := recs[:0:0]
	for _, rc := range recs {
		if IsMissing(rc.fields[label]) {
			if missing == MissingDropRows {
				continue
			}
			return nil, tabio.Errorf(rc.file, rc.line, "label column %q: missing value %q (a label cannot be imputed; use missing: drop-rows)", names[label], rc.fields[label])
		}
		if err := tabio.CheckLabel(rc.fields[label]); err != nil {
			return nil, tabio.Errorf(rc.file, rc.line, "label column %q: %v", names[label], err)
		}
		skip := false
		for j, v := range rc.fields {
			if used(j) && IsMissing(v) {
				switch missing {
				case MissingError:
					hint := ""
					if j == len(names)-1 && v == "" {
						hint = "; a trailing separator?"
					}
					return nil, tabio.Errorf(rc.file, rc.line, "column %q: missing value %q (set missing: mean or drop-rows%s)", names[j], v, hint)
				case MissingDropRows:
					skip = true
				}
			}
		}
		if !skip {
			kept = append(kept, rc)
		}
	}
	recs = kept

	// Task and labels.
	task := o.Task
	switch task {
	case "", TaskAuto:
		task = TaskRegression
		for _, rc := range recs {
			v := rc.fields[label]
			if _, ok := parseNumber(v); ok {
				continue
			}
			if _, err := strconv.ParseFloat(v, 64); err == nil && strings.ContainsAny(v, "xX_") {
				_, err := tabio.ParseFinite(v)
				return nil, tabio.Errorf(rc.file, rc.line, "label column %q: %v (task: classification reads it as a class name)", names[label], err)
			}
			task = TaskClassification
			break
		}
	case TaskClassification, TaskRegression:
	default:
		return nil, fmt.Errorf("%s: task %q: want auto, classification or regression", file, o.Task)
	}
	if task == TaskRegression && len(o.Classes) > 0 {
		return nil, fmt.Errorf("%s: classes given for a regression task", file)
	}
	d := &datasets.Dataset{}
	var y []float64
	if task == TaskClassification {
		classes := o.Classes
		if len(classes) == 0 {
			classes = sortedValues(recs, label)
		}
		index := map[string]int{}
		for k, c := range classes {
			if _, dup := index[c]; dup {
				return nil, fmt.Errorf("%s: class %q listed twice", whole, c)
			}
			index[c] = k
		}
		seen := make([]bool, len(classes))
		kept := recs[:0:0]
		for _, rc := range recs {
			k, ok := index[rc.fields[label]]
			if !ok {
				continue // only when classes were given
			}
			seen[k] = true
			kept = append(kept, rc)
			y = append(y, float64(k))
		}
		for k, s := range seen {
			if !s {
				return nil, fmt.Errorf("%s: class %q has no rows; labels present: %s", whole, classes[k], strings.Join(sortedValues(recs, label), ", "))
			}
		}
		recs = kept
		if len(classes) < o.MinClasses && len(classes) == 1 {
			return nil, fmt.Errorf("%s: label column %q: every row has class %q; a classification dataset needs at least two classes", whole, names[label], classes[0])
		}
		d.Classes = append([]string(nil), classes...)
	} else {
		for _, rc := range recs {
			v, err := tabio.ParseFinite(rc.fields[label])
			if err != nil {
				return nil, tabio.Errorf(rc.file, rc.line, "label column %q: %v (a regression target must be a finite number; use task: classification for class labels)", names[label], err)
			}
			y = append(y, v)
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no rows left after removing missing values", whole)
	}

	// Feature layout.
	type feature struct {
		src   int    // source column
		value string // categorical value, or "" for a numeric column
	}
	var feats []feature
	firstFeat := make([]int, len(names)) // first feature index of each column
	nFeat := make([]int, len(names))
	for j := range names {
		if !used(j) {
			continue
		}
		firstFeat[j] = len(feats)
		if categorical[j] {
			for _, v := range sortedValues(recs, j) {
				if !IsMissing(v) {
					feats = append(feats, feature{j, v})
				}
			}
		} else {
			feats = append(feats, feature{src: j})
		}
		nFeat[j] = len(feats) - firstFeat[j]
	}
	n, p := len(recs), len(feats)
	if p == 0 {
		return nil, tabio.Errorf(file, columnsLine, "no feature columns: every feature column is categorical with no value present; a dataset needs at least one")
	}
	x := matrix.NewDense(n, p, nil)
	isMissing := make([]bool, n*p)
	anyMissing := false
	for i, rc := range recs {
		row := x.RawRow(i)
		for j, v := range rc.fields {
			if !used(j) {
				continue
			}
			if IsMissing(v) { // only under the mean policy
				for k := firstFeat[j]; k < firstFeat[j]+nFeat[j]; k++ {
					isMissing[i*p+k] = true
				}
				anyMissing = true
				continue
			}
			if categorical[j] {
				if err := tabio.CheckUTF8(fmt.Sprintf("column %q: value", names[j]), v); err != nil {
					return nil, tabio.Errorf(rc.file, rc.line, "%v", err)
				}
				for k := firstFeat[j]; k < firstFeat[j]+nFeat[j]; k++ {
					if feats[k].value == v {
						row[k] = 1
					}
				}
				continue
			}
			f, err := tabio.ParseFinite(v)
			if err != nil {
				return nil, tabio.Errorf(rc.file, rc.line, "column %q: %v (want a finite number; list the column in categorical or drop)", names[j], err)
			}
			row[firstFeat[j]] = f
		}
	}
	if anyMissing {
		notes, err := imputeMean(x, isMissing, func(k int) (string, string) {
			return names[feats[k].src], feats[k].value
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", whole, err)
		}
		d.Notes = append(d.Notes, notes...)
	}
	d.Prep = prepOf(isMissing, anyMissing, n, p, categorical, firstFeat, nFeat)
	d.Features = make([]string, p)
	for k, f := range feats {
		d.Features[k] = names[f.src]
		if categorical[f.src] {
			d.Features[k] += "=" + f.value
		}
	}
	d.X, d.Y = x, y
	if len(srcs) > 1 {
		d.Split = make([]datasets.Part, len(recs))
		for i, rc := range recs {
			if rc.test {
				d.Split[i] = datasets.SplitTest
			}
		}
	}

	// Groups.
	groups, err := buildGroups(o, col, label, dropped, categorical, firstFeat, nFeat, names)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	d.Groups = groups
	if len(o.Groups) > 0 {
		if note := ungroupedNote(d); note != "" {
			d.Notes = append(d.Notes, note)
		}
	}
	if err := tabio.Check(d); err != nil {
		return nil, fmt.Errorf("%s: %w", whole, err)
	}
	return d, nil
}

func labelColumn(s string, col map[string]int, n int) (int, error) {
	if j, ok := col[s]; ok {
		return j, nil
	}
	if s == "" {
		return 0, fmt.Errorf("no label column given")
	}
	if k, err := strconv.Atoi(s); err == nil {
		if k < 0 {
			k += n
		}
		if k >= 0 && k < n {
			return k, nil
		}
		return 0, fmt.Errorf("label column index %s out of range for %d columns", s, n)
	}
	names := make([]string, 0, len(col))
	for c := range col {
		names = append(names, c)
	}
	sort.Strings(names)
	return 0, fmt.Errorf("label column %q not found; columns: %s", s, strings.Join(names, ", "))
}

// sortedValues returns the distinct values of column j, numerically sorted
// when all are numbers, else lexicographically.
func sortedValues(recs []record, j int) []string {
	set := map[string]bool{}
	for _, rc := range recs {
		set[rc.fields[j]] = true
	}
	out := make([]string, 0, len(set))
	numeric := true
	for v := range set {
		out = append(out, v)
		if _, ok := parseNumber(v); !ok {
			numeric = false
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if numeric {
			fa, _ := parseNumber(out[a])
			fb, _ := parseNumber(out[b])
			if fa != fb {
				return fa < fb
			}
		}
		return out[a] < out[b]
	})
	return out
}

// imputeMean replaces the missing values of x by their feature's mean
// over the rows that have one, and returns one note for the table naming
// the columns imputed (a categorical column once, whatever its dummies).
// column returns feature k's source column and, for a dummy, its value.
func imputeMean(x *matrix.Dense, isMissing []bool, column func(int) (name, value string)) ([]string, error) {
	n, p := x.Dims()
	type imputed struct {
		name          string
		miss, dummies int
		mean          float64
	}
	var cols []*imputed
	byName := map[string]*imputed{}
	total := 0
	for k := 0; k < p; k++ {
		sum, cnt, miss := 0.0, 0, 0
		for i := 0; i < n; i++ {
			if isMissing[i*p+k] {
				miss++
			} else {
				sum += x.At(i, k)
				cnt++
			}
		}
		if miss == 0 {
			continue
		}
		name, value := column(k)
		if cnt == 0 {
			if value != "" {
				name += "=" + value
			}
			return nil, fmt.Errorf("column %q: every value is missing, no mean to impute", name)
		}
		m := sum / float64(cnt)
		for i := 0; i < n; i++ {
			if isMissing[i*p+k] {
				x.Set(i, k, m)
			}
		}
		c := byName[name]
		if c == nil {
			// A categorical column's dummies are missing in the same rows.
			c = &imputed{name: name, miss: miss, mean: m}
			byName[name] = c
			cols = append(cols, c)
			total += miss
		}
		if value != "" {
			c.dummies++
		}
	}
	if len(cols) == 0 {
		return nil, nil
	}
	items := make([]string, len(cols))
	for i, c := range cols {
		if c.dummies > 0 {
			items[i] = fmt.Sprintf("%s (%d; each of its %d dummy columns by its mean)", c.name, c.miss, c.dummies)
		} else {
			items[i] = fmt.Sprintf("%s (%d, mean %.6g)", c.name, c.miss, c.mean)
		}
	}
	values, columns := "values", "columns"
	if total == 1 {
		values = "value"
	}
	if len(cols) == 1 {
		columns = "column"
	}
	return []string{fmt.Sprintf("%d missing %s in %d %s replaced by the column's mean over the training rows of each trial that have one (the means shown are over every row read): %s",
		total, values, len(cols), columns, strings.Join(listed(items), ", "))}, nil
}

// prepOf returns the record of the table's preprocessing that the runner
// refits on each trial's training rows (datasets.Prep): the imputed cells
// of each row (isMissing, n rows of p features) and the dummy columns of
// each categorical column; nil when there is neither.
func prepOf(isMissing []bool, anyMissing bool, n, p int, categorical []bool, firstFeat, nFeat []int) *datasets.Prep {
	prep := &datasets.Prep{Imputed: anyMissing}
	for j, c := range categorical {
		if c && nFeat[j] > 0 {
			cols := make([]int, nFeat[j])
			for k := range cols {
				cols[k] = firstFeat[j] + k
			}
			prep.Dummies = append(prep.Dummies, cols)
		}
	}
	if anyMissing {
		prep.Missing = make([][]int, n)
		for i := range prep.Missing {
			for k := 0; k < p; k++ {
				if isMissing[i*p+k] {
					prep.Missing[i] = append(prep.Missing[i], k)
				}
			}
		}
	}
	if !anyMissing && len(prep.Dummies) == 0 {
		return nil
	}
	return prep
}

// maxListed is the most column names a note lists.
const maxListed = 10

// listed returns items cut to maxListed, with a count of the others.
func listed(items []string) []string {
	if n := len(items); n > maxListed {
		return append(items[:maxListed:maxListed], fmt.Sprintf("and %d more", n-maxListed))
	}
	return items
}

// ungroupedNote says which feature columns are in none of d's groups
// when the experiment declared some: group-penalized methods take each
// as a group of its own, which the user may not have meant.
func ungroupedNote(d *datasets.Dataset) string {
	in := make([]bool, len(d.Features))
	for _, g := range d.Groups {
		for _, j := range g.Columns {
			in[j] = true
		}
	}
	var out []string
	for j, f := range d.Features {
		if !in[j] {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return ""
	}
	n := len(out)
	out = listed(out)
	what := "column is"
	if n > 1 {
		what = "columns are"
	}
	return fmt.Sprintf("%d of %d feature %s in no declared group (%s): methods with group penalties take each as a one-column group", n, len(d.Features), what, strings.Join(out, ", "))
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func buildGroups(o Options, col map[string]int, label int, dropped, categorical []bool, first, count []int, names []string) ([]datasets.Group, error) {
	inDeclared := make([]bool, len(names))
	declared := map[string]datasets.Group{}
	// Every bad group is reported, each at its own key, in name order.
	var errs []error
	for _, g := range sortedKeys(o.Groups) {
		var cols []int
		bad := false
		for _, c := range strings.Split(o.Groups[g], ",") {
			c = strings.TrimSpace(c)
			if c == "" {
				continue
			}
			j, ok := col[c]
			var err error
			switch {
			case !ok:
				msg := fmt.Sprintf("column %q not found", c)
				if s := param.Closest(c, names); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				err = param.InvalidKey("groups", g, "%s; want columns of the table: %s", msg, strings.Join(names, ", "))
			case j == label:
				err = param.InvalidKey("groups", g, "column %q is the label; want feature columns", c)
			case dropped[j]:
				err = param.InvalidKey("groups", g, "column %q is dropped; want it out of drop, or out of the group", c)
			}
			if err != nil {
				errs, bad = append(errs, err), true
				continue
			}
			inDeclared[j] = true
			for k := first[j]; k < first[j]+count[j]; k++ {
				cols = append(cols, k)
			}
		}
		if bad {
			continue
		}
		if len(cols) == 0 {
			errs = append(errs, param.InvalidKey("groups", g, "group %q has no columns; want comma-separated column names", g))
			continue
		}
		declared[g] = datasets.Group{Name: g, Columns: cols}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	all := map[string]datasets.Group{}
	var defaultOrder []string
	for j := range names {
		if categorical[j] && !inDeclared[j] {
			if _, clash := declared[names[j]]; clash {
				return nil, fmt.Errorf("group %q: name taken by categorical column %q, which is in no group", names[j], names[j])
			}
			g := datasets.Group{Name: names[j]}
			for k := first[j]; k < first[j]+count[j]; k++ {
				g.Columns = append(g.Columns, k)
			}
			all[names[j]] = g
			defaultOrder = append(defaultOrder, names[j])
		}
	}
	var declNames []string
	for g, v := range declared {
		all[g] = v
		declNames = append(declNames, g)
	}
	sort.Strings(declNames)
	defaultOrder = append(defaultOrder, declNames...)
	if len(all) == 0 && len(o.GroupOrder) == 0 {
		return nil, nil
	}
	if len(o.GroupOrder) == 0 {
		out := make([]datasets.Group, len(defaultOrder))
		for i, g := range defaultOrder {
			out[i] = all[g]
		}
		return out, nil
	}
	var out []datasets.Group
	seen := map[string]bool{}
	for _, g := range o.GroupOrder {
		v, ok := all[g]
		if !ok {
			return nil, fmt.Errorf("group_order: no group %q; groups: %s", g, strings.Join(defaultOrder, ", "))
		}
		if seen[g] {
			return nil, fmt.Errorf("group_order: group %q listed twice", g)
		}
		seen[g] = true
		out = append(out, v)
	}
	if len(out) != len(all) {
		var missed []string
		for _, g := range defaultOrder {
			if !seen[g] {
				missed = append(missed, g)
			}
		}
		return nil, fmt.Errorf("group_order leaves out groups %s", strings.Join(missed, ", "))
	}
	return out, nil
}
