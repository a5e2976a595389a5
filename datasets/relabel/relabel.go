// Package relabel provides the relabel transform: it maps a dataset's
// classes onto new ones by name patterns — the binary tasks papers build
// from a multi-class corpus, such as Nova (the politics and religion groups
// of 20 Newsgroups against the rest) or one newsgroup against another.
package relabel

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
)

func init() {
	datasets.RegisterTypedTransform("relabel", datasets.TypedTransform[params]{
		Doc:        "maps classes onto new ones by name patterns (Nova: talk.politics.* and talk.religion.* against the rest); rows of classes no pattern matches get class rest, or are dropped",
		Supervised: true,
		Rows:       true, // rows of unmatched classes are dropped when rest is empty
		Version:    1,
		Apply:      apply,
		Validate:   validate,
	})
}

// params are the parameters of relabel.
type params struct {
	Classes map[string]string `param:"classes" doc:"new class for each pattern of old class names (path.Match globs: talk.politics.*), e.g. {\"talk.politics.*\": politics}"`
	Rest    string            `param:"rest" default:"" doc:"class of the rows no pattern matches; empty drops them"`
}

func validate(p params) error {
	var errs []error
	for pat := range p.Classes {
		if _, err := path.Match(pat, ""); err != nil {
			errs = append(errs, param.Invalid("classes", "pattern %q: %v; want a path.Match glob", pat, err))
		}
	}
	if len(p.Classes) == 0 {
		errs = append(errs, param.Invalid("classes", "no pattern; want at least one pattern: class entry"))
	}
	return errors.Join(errs...)
}

// Map returns the new class of each old class under patterns (old class
// name → new name, "" for none), and the new classes, sorted. An old
// class matched by two patterns with different new classes is an error.
func Map(classes []string, patterns map[string]string, rest string) (to []string, names []string, err error) {
	pats := make([]string, 0, len(patterns))
	for p := range patterns {
		pats = append(pats, p)
	}
	sort.Strings(pats)
	to = make([]string, len(classes))
	seen := map[string]bool{}
	for c, name := range classes {
		for _, p := range pats {
			ok, err := path.Match(p, name)
			if err != nil {
				return nil, nil, fmt.Errorf("pattern %q: %w", p, err)
			}
			if !ok {
				continue
			}
			if to[c] != "" && to[c] != patterns[p] {
				return nil, nil, fmt.Errorf("class %q matches patterns for both %q and %q", name, to[c], patterns[p])
			}
			to[c] = patterns[p]
		}
		if to[c] == "" {
			to[c] = rest
		}
		if to[c] != "" {
			seen[to[c]] = true
		}
	}
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 2 {
		return nil, nil, fmt.Errorf("the patterns leave %d class(es) %v among %v; want at least two", len(names), names, classes)
	}
	return to, names, nil
}

func apply(_ context.Context, _ datasets.Env, d *datasets.Dataset, p params) (*datasets.Dataset, error) {
	if !d.IsClassification() {
		return nil, errors.New("relabel needs a classification dataset")
	}
	to, names, err := Map(d.Classes, p.Classes, p.Rest)
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	var keep []int
	for i := range d.Y {
		if to[d.Label(i)] != "" {
			keep = append(keep, i)
		}
	}
	out := d
	if len(keep) < d.Rows() {
		out = d.Subset(keep)
	} else {
		c := *d
		c.Y = append([]float64(nil), d.Y...)
		out = &c
	}
	counts := make([]int, len(names))
	for i, y := range out.Y {
		k := index[to[int(y)]]
		out.Y[i] = float64(k)
		counts[k]++
	}
	out.Classes = names
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, counts[i])
	}
	out.Notes = append(append([]string(nil), d.Notes...), fmt.Sprintf("relabelled: %s rows (%d of %d rows kept)", strings.Join(parts, ", "), out.Rows(), d.Rows()))
	return out, nil
}
