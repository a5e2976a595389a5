package spec

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
)

// The spec's own sections are declared once, by the tags and doc
// comments of their Go types in spec.go (see fields.go): one generic walk
// (decode.go) checks types, ranges, choices and unknown keys and fills
// every default, Marshal writes the same fields back, and the field
// tables of docs/spec.md are generated from them (TestSpecDoc). What is
// left to code is what relates fields to each other: validate.go.

// Limits on what a spec may ask for.
const (
	// DefaultSeed is the experiment seed when the spec gives none.
	DefaultSeed = 1
	// DefaultFolds is the number of cross-validation folds of a cv rule.
	DefaultFolds = 5
	maxDigits    = 12
	maxGrid      = 100000
	maxTrials    = 100000
)

// tagConsts are the constants the range and default tags of the spec's
// types may name, for values code reads too.
var tagConsts = map[string]string{
	"DefaultSeed":  strconv.Itoa(DefaultSeed),
	"DefaultFolds": strconv.Itoa(DefaultFolds),
	"maxTrials":    strconv.Itoa(maxTrials),
	"maxDigits":    strconv.Itoa(maxDigits),
	"MaxBootstrap": strconv.Itoa(MaxBootstrap),
}

// The split kind, select rule and protocol a spec without them has: the
// defaults of the split, select and protocol sections' tags.
var (
	defaultSplit    = defaultOf[DatasetSpec]("Split", "kind")
	defaultRule     = defaultOf[MethodSpec]("Select", "rule")
	defaultProtocol = defaultOf[Spec]("Protocol", "name")
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// schema returns the declaration of the whole spec, a Section derived
// from the type Spec. With free set it is the registry-free schema of
// ReadSpec: plugin names are plain strings, plugin params are taken as
// written, metrics are plain names. Splitters, selectors and protocols
// are the runner's own and are always looked up.
func schema(free bool) param.Decl {
	d := sectionOf(reflect.TypeFor[Spec](), free)
	d.Want = "a mapping with name, datasets, methods, curve and metrics"
	return d
}

// hooks complete a field's declaration with what only the registries
// know, once the plugins are linked in: the names a field takes (and its
// message when one is missing), the plugin whose params a section's tag
// selects. A field names its hook with a hook tag. With
// free (the registry-free schema) plugin and metric names are plain
// strings and the plugins of datasets, transforms and methods are not
// looked up.
var hooks = map[string]func(d *param.Decl, free bool){
	"datasets": func(d *param.Decl, free bool) {
		d.Want = "a list of datasets, each with a name from " + strings.Join(datasets.Names(), ", ")
		d.Plugin = lookup(free, pluginOf(datasets.Lookup, func(l *datasets.Loader) param.Plugin {
			return param.Plugin{Params: l.Params, Validate: l.Validate}
		}))
	},
	"dataset": pluginName("dataset", datasets.Names),
	"transforms": func(d *param.Decl, free bool) {
		d.Plugin = lookup(free, pluginOf(datasets.LookupTransform, func(t *datasets.Transform) param.Plugin {
			return param.Plugin{Params: t.Params}
		}))
	},
	"transform": pluginName("transform", datasets.TransformNames),
	"fit":       choices(FitPool, FitTrain, FitAll),
	"split": func(d *param.Decl, free bool) {
		d.Plugin = pluginOf(LookupSplitter, func(s *Splitter) param.Plugin { return param.Plugin{Params: s.Params} })
	},
	"split kind": func(d *param.Decl, free bool) { choices(Splitters.Names()...)(d, free) },
	"methods": func(d *param.Decl, free bool) {
		d.Want = "a list of methods, each with a name from " + strings.Join(methods.Names(), ", ")
		d.Plugin = lookup(free, pluginOf(methods.Lookup, func(p *methods.Plugin) param.Plugin {
			return param.Plugin{Params: p.Params, Validate: p.Validate, Free: p.Free}
		}))
	},
	"method":          pluginName("method", methods.Names),
	"select rule":     func(d *param.Decl, free bool) { choices(Selectors.Names()...)(d, free) },
	"method protocol": func(d *param.Decl, free bool) { d.Plugin = perMethodProtocol },
	"protocol": func(d *param.Decl, free bool) {
		d.Plugin = pluginOf(LookupProtocol, func(p *Protocol) param.Plugin { return param.Plugin{Params: p.Params} })
	},
	"protocol name": func(d *param.Decl, free bool) { choices(Protocols.Names()...)(d, free) },
	"metrics": func(d *param.Decl, free bool) {
		d.Want = "a list of metrics from " + strings.Join(metric.Names(), ", ")
		metricName(d, free)
	},
	"metric": metricName,
	"sampling": func(d *param.Decl, free bool) {
		choices(string(datasets.Random), string(datasets.Stratified), string(datasets.Balanced))(d, free)
		d.Default = string(datasets.Random)
	},
	"paired test": func(d *param.Decl, free bool) { choices(PairedTests...)(d, free) },
}

// choices makes a string field an Enum of names.
func choices(names ...string) func(d *param.Decl, free bool) {
	return func(d *param.Decl, free bool) { d.Type, d.Choices = param.Enum, names }
}

// pluginName declares the name field of a plugin's entry: one of the
// registry's names, or with free any string.
func pluginName(what string, names func() []string) func(d *param.Decl, free bool) {
	return func(d *param.Decl, free bool) {
		d.Want = fmt.Sprintf("a %s plugin from %s", what, strings.Join(names(), ", "))
		if !free {
			d.Type, d.Choices = param.Enum, names()
		}
	}
}

// metricName declares a metric field (or list): registered metrics, or
// with free any names.
func metricName(d *param.Decl, free bool) {
	if free {
		return
	}
	if d.Type == param.String {
		d.Type = param.Enum
	}
	d.Choices = metric.Names()
}

// lookup is get, or with free a lookup that finds no plugin: the params
// are then taken as written.
func lookup(free bool, get func(string) (*param.Plugin, error)) func(string) (*param.Plugin, error) {
	if free {
		return func(string) (*param.Plugin, error) { return nil, nil }
	}
	return get
}

// checks are the checks a field of the spec names in its check tag.
var checks = map[string]func(v any) error{
	"name":          outputName,
	"id":            plainName(""),
	"dataset id":    plainName("(a dataset id)"),
	"label":         usableLabel,
	"training size": trainingSize,
	"x":             plainName("(size or a param)"),
	"y":             plainName("(a metric or an extra a protocol records)"),
	"metric digits": metricDigits,
	"set":           setArg,
}

// perMethodProtocol returns, as a plugin, the protocol params a method
// entry may set (Protocol.PerMethod of every protocol), each optional:
// which apply is checked against the experiment's protocol once it is
// decoded (checkMethodProtocol).
func perMethodProtocol(string) (*param.Plugin, error) {
	var out param.Plugin
	for _, name := range Protocols.Names() {
		p, _ := LookupProtocol(name)
		for _, pm := range p.PerMethod {
			d, ok := param.Find(p.Params, pm)
			if !ok {
				panic(fmt.Sprintf("runner: protocol %s: PerMethod %q is not a param", name, pm))
			}
			if _, dup := param.Find(out.Params, pm); dup {
				continue
			}
			d.Default, d.Optional, d.DefaultDoc = nil, true, "the experiment's"
			out.Params = append(out.Params, d)
		}
	}
	return &out, nil
}

// pluginOf adapts a registry's Lookup to param.Decl.Plugin.
func pluginOf[T any](lookup func(string) (T, error), of func(T) param.Plugin) func(string) (*param.Plugin, error) {
	return func(name string) (*param.Plugin, error) {
		p, err := lookup(name)
		if err != nil {
			return nil, err
		}
		out := of(p)
		return &out, nil
	}
}

// plainName checks a name that becomes part of a path or key.
func plainName(why string) func(v any) error {
	return func(v any) error {
		s, _ := v.(string)
		if !nameRE.MatchString(s) || strings.Contains(s, "..") {
			msg := "is not a plain name; want letters, digits, '.', '_' and '-'"
			if why != "" {
				msg += " " + why
			}
			return errors.New(msg)
		}
		return nil
	}
}

// maxNameLen is the longest experiment name: it names the default output
// directory out/NAME (out/NAME-smoke), one path element of at most 255
// bytes on most file systems.
const maxNameLen = 200

// outputName checks the experiment's name: a plain name that can name a
// directory.
func outputName(v any) error {
	if err := plainName("(it names the output directory)")(v); err != nil {
		return err
	}
	if s, _ := v.(string); len(s) > maxNameLen {
		return fmt.Errorf("is too long; want at most %d characters (it names the output directory out/NAME)", maxNameLen)
	}
	return nil
}

// setArg checks the form of a smoke: entry as applySet reads a --set
// argument: key.path=value with no empty key.
func setArg(v any) error {
	s, _ := v.(string)
	key, _, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return errors.New("is not key.path=value; want e.g. curve.trials=1")
	}
	if slices.Contains(strings.Split(key, "."), "") {
		return fmt.Errorf("has an empty key in %s; want dot-separated keys, e.g. methods.0.params.C", param.Quote(key))
	}
	return nil
}

// usableLabel checks a method label: series names append "(p=v)" to it.
func usableLabel(v any) error {
	s, _ := v.(string)
	if strings.TrimSpace(s) == "" || strings.ContainsAny(s, "()\n") {
		return errors.New("is not a usable label; want a non-empty name without parentheses or newlines")
	}
	return nil
}

// metricDigits checks report.metric_digits: each value a whole number of
// decimals.
func metricDigits(v any) error {
	m, _ := v.(map[string]string)
	for _, k := range sortedStrings(m) {
		if _, err := parseDigits(m[k]); err != nil {
			return fmt.Errorf("gives %s %q; want a whole number of decimals in [0, %d] per metric", k, m[k], maxDigits)
		}
	}
	return nil
}

// parseDigits reads a number of decimals of report.metric_digits.
func parseDigits(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > maxDigits {
		return 0, fmt.Errorf("%q is not a number of decimals in [0, %d]", s, maxDigits)
	}
	return n, nil
}

func sortedStrings(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// trainingSize checks one of curve.sizes: a count of rows or a fraction.
func trainingSize(v any) error {
	f, _ := v.(float64)
	const want = "; want a count ≥ 2 or a fraction in (0, 1]"
	switch {
	case f <= 0:
		return errors.New("is out of range" + want)
	case f > 1<<53:
		return errors.New("is too large for a count of rows" + want)
	case f > 1 && f != math.Trunc(f):
		return errors.New("is not a whole number of rows" + want)
	}
	return nil
}

// SchemaDoc returns the generated Markdown of docs/spec.md block key: the
// field table of a section ("fields", "fields datasets", "fields
// methods.select", …) or the table of a runner registry's plugins ("kinds
// split", "kinds select", "kinds protocol") with their params. TestSpecDoc
// fails when the document and the declarations disagree; `go test
// ./spec -run TestSpecDoc -update` rewrites the blocks.
func SchemaDoc(key string) (string, error) {
	what, arg, _ := strings.Cut(key, " ")
	switch what {
	case "fields":
		// The registry-free schema: which plugins and metrics are
		// compiled in is for `repro list`, not for the document.
		d := schema(true)
		if arg != "" {
			for _, name := range strings.Split(arg, ".") {
				f, ok := param.Find(d.Fields, name)
				if !ok || !f.IsSection() {
					return "", fmt.Errorf("no section %q in the spec", arg)
				}
				d = f
			}
		}
		return param.Table(d.Fields), nil
	case "kinds":
		var b strings.Builder
		b.WriteString("| name | meaning | params |\n|---|---|---|\n")
		row := func(name, doc string, params []param.Decl) {
			ps := "none"
			if len(params) > 0 {
				parts := make([]string, len(params))
				for i, p := range params {
					def := p.DefaultText()
					if !p.Required() {
						def = "default " + def
					}
					parts[i] = fmt.Sprintf("`%s` (%s, %s): %s", p.Name, p.TypeDoc(), def, p.Doc)
				}
				ps = strings.Join(parts, "; ")
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, param.Cell(doc), param.Cell(ps))
		}
		switch arg {
		case "split":
			for _, n := range Splitters.Names() {
				s, _ := LookupSplitter(n)
				row(n, s.Doc, s.Params)
			}
		case "select":
			for _, n := range Selectors.Names() {
				s, _ := LookupSelector(n)
				row(n, s.Doc, nil)
			}
		case "protocol":
			for _, n := range Protocols.Names() {
				p, _ := LookupProtocol(n)
				row(n, p.Doc, p.Params)
			}
		default:
			return "", fmt.Errorf("no registry %q", arg)
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("unknown block %q; want fields [SECTION] or kinds split|select|protocol", key)
}

// MaxBootstrap is the largest report.bootstrap: resamples per trial.
const MaxBootstrap = 10000
