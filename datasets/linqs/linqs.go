// Package linqs loads citation datasets in the LINQS format (Cora,
// CiteSeer): a .content file with one paper per line — its id, one 0/1
// value per dictionary word, its class — and a .cites file of
// "cited citing" id pairs.
//
// Plugins: "cora" and "citeseer" (default paths cora/cora.content.gz and
// citeseer/citeseer.content.gz in the data directory) and "linqs" (any
// content and cites files). Words become binary CSR features "w1", "w2", …;
// classes are sorted by name.
//
// The citation graph is n×n over papers (rows), whereas Dataset.Graphs
// holds feature graphs over columns and is shared, not subset, by
// Dataset.Subset; so the loaders do not put it in Graphs. They report its
// size in Stats ("cites.edges", "cites.self", "cites.unknown") and Notes,
// and LoadCitations returns it beside the dataset for code that needs it.
package linqs

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/internal/tabio"
	"github.com/repro-ml/repro/matrix"
)

const source = "LINQS (https://linqs.org/datasets/), see the data folder's README"

// citesParam is the cites parameter the LINQS loaders share.
type citesParam struct {
	Cites string `param:"cites" default:"" doc:"the .cites file; default: beside content with the same stem"`
}

// The parameters of the LINQS loaders differ in content's default: none
// for linqs, the dataset's file for cora and citeseer.
type (
	linqsParams struct {
		Content string `param:"content" doc:"the .content(.gz) file, relative to the data directory"`
		citesParam
	}
	coraParams struct {
		Content string `param:"content" default:"cora/cora.content.gz" doc:"the .content(.gz) file, relative to the data directory"`
		citesParam
	}
	citeseerParams struct {
		Content string `param:"content" default:"citeseer/citeseer.content.gz" doc:"the .content(.gz) file, relative to the data directory"`
		citesParam
	}
)

// linqsFiles is implemented by the parameters of every LINQS loader.
type linqsFiles interface {
	// files returns the content and cites files the loader reads.
	files() []string
}

func (p linqsParams) files() []string    { return files(p.Content, p.Cites) }
func (p coraParams) files() []string     { return files(p.Content, p.Cites) }
func (p citeseerParams) files() []string { return files(p.Content, p.Cites) }

// register makes the LINQS loader name, with parameters T, available.
func register[T linqsFiles](name, doc string) {
	datasets.RegisterTyped(name, datasets.TypedLoader[T]{
		Doc:   doc,
		Files: T.files,
		Load: func(_ context.Context, env datasets.Env, p T) (*datasets.Dataset, error) {
			fs := p.files()
			cp, err := env.Path(fs[0], source)
			if err != nil {
				return nil, err
			}
			ct, err := env.Path(fs[1], source)
			if err != nil {
				return nil, err
			}
			d, _, err := LoadCitations(cp, ct)
			if err != nil {
				return nil, err
			}
			d.Name = name
			return d, nil
		},
	})
}

func init() {
	register[linqsParams]("linqs", "a LINQS citation dataset (content + cites): binary word features, paper classes")
	register[coraParams]("cora", "LINQS cora: binary word features, paper classes (citation graph counted in Stats)")
	register[citeseerParams]("citeseer", "LINQS citeseer: binary word features, paper classes (citation graph counted in Stats)")
}

// CitesFor returns the .cites file beside a .content(.gz) file.
func CitesFor(content string) string {
	s := strings.TrimSuffix(content, ".gz")
	return strings.TrimSuffix(s, ".content") + ".cites"
}

// Citations is the citation graph of a LINQS dataset.
type Citations struct {
	// IDs are the paper ids, by dataset row.
	IDs []string
	// Graph is the n×n adjacency over rows: Graph[i][j] = 1 when paper i
	// cites paper j. Lines naming an id absent from the content file are
	// skipped (counted in Unknown); self-citations are kept on the diagonal.
	Graph *matrix.CSR
	// Lines, Unknown and Self count the .cites lines, those naming an
	// unknown id, and the self-citations.
	Lines, Unknown, Self int
}

// ReadContent reads a LINQS .content file (gunzipped when it ends in .gz).
// It returns the dataset and the paper id of each row.
func ReadContent(path string) (*datasets.Dataset, []string, error) {
	f, err := tabio.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var (
		ids, labels []string
		b           *matrix.Builder
		words       = -1
		seen        = map[string]int{}
	)
	err = tabio.Lines(f, path, func(line int, text string) error {
		fields := strings.Fields(text)
		if len(fields) == 0 {
			return nil
		}
		if len(fields) < 3 {
			return tabio.Errorf(path, line, "%d fields, want: paper id, word values, class", len(fields))
		}
		if words < 0 {
			words = len(fields) - 2
			b = matrix.NewBuilder(words)
		} else if len(fields)-2 != words {
			return tabio.Errorf(path, line, "%d word values, want %d as on the first line", len(fields)-2, words)
		}
		id := fields[0]
		if err := tabio.CheckUTF8("paper id", id); err != nil {
			return tabio.Errorf(path, line, "%v", err)
		}
		if prev, dup := seen[id]; dup {
			return tabio.Errorf(path, line, "paper id %q already on line %d", id, prev)
		}
		seen[id] = line
		for j, v := range fields[1 : len(fields)-1] {
			switch v {
			case "0":
			case "1":
				b.Add(j, 1)
			default:
				return tabio.Errorf(path, line, "word %d: %q, want 0 or 1", j+1, v)
			}
		}
		class := fields[len(fields)-1]
		if err := tabio.CheckLabel(class); err != nil {
			return tabio.Errorf(path, line, "class: %v", err)
		}
		b.EndRow()
		ids = append(ids, id)
		labels = append(labels, class)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(ids) == 0 {
		return nil, nil, tabio.Errorf(path, 0, "no papers")
	}
	classSet := map[string]bool{}
	for _, l := range labels {
		classSet[l] = true
	}
	d := &datasets.Dataset{X: b.Build(), Y: make([]float64, len(ids)), Features: make([]string, words)}
	for c := range classSet {
		d.Classes = append(d.Classes, c)
	}
	sort.Strings(d.Classes)
	if len(d.Classes) < 2 {
		return nil, nil, tabio.Errorf(path, 0, "every paper has class %q; a classification dataset needs at least two classes", d.Classes[0])
	}
	index := map[string]int{}
	for k, c := range d.Classes {
		index[c] = k
	}
	for i, l := range labels {
		d.Y[i] = float64(index[l])
	}
	for j := range d.Features {
		d.Features[j] = "w" + strconv.Itoa(j+1)
	}
	if err := tabio.Check(d); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, ids, nil
}

// ReadCites reads a LINQS .cites file ("cited citing" per line) into the
// citation graph over the papers ids (row order).
func ReadCites(path string, ids []string) (*Citations, error) {
	f, err := tabio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	row := make(map[string]int, len(ids))
	for i, id := range ids {
		row[id] = i
	}
	c := &Citations{IDs: ids}
	out := make([][]int, len(ids))
	err = tabio.Lines(f, path, func(line int, text string) error {
		fields := strings.Fields(text)
		if len(fields) == 0 {
			return nil
		}
		if len(fields) != 2 {
			return tabio.Errorf(path, line, "%d fields, want 2 (cited paper id, citing paper id)", len(fields))
		}
		for _, id := range fields {
			if err := tabio.CheckUTF8("paper id", id); err != nil {
				return tabio.Errorf(path, line, "%v", err)
			}
		}
		c.Lines++
		cited, ok1 := row[fields[0]]
		citing, ok2 := row[fields[1]]
		if !ok1 || !ok2 {
			c.Unknown++
			return nil
		}
		if cited == citing {
			c.Self++
		}
		out[citing] = append(out[citing], cited)
		return nil
	})
	if err != nil {
		return nil, err
	}
	b := matrix.NewBuilder(len(ids))
	for _, js := range out {
		for _, j := range js {
			b.Add(j, 1)
		}
		b.EndRow()
	}
	g := b.Build()
	for k := range g.Val {
		g.Val[k] = 1 // a pair listed twice is one edge
	}
	c.Graph = g
	return c, nil
}

// LoadCitations reads a content file and its cites file. The dataset's
// Stats hold "cites.edges" (distinct directed edges), "cites.self" and
// "cites.unknown" (lines naming a paper not in the content file).
func LoadCitations(contentPath, citesPath string) (*datasets.Dataset, *Citations, error) {
	d, ids, err := ReadContent(contentPath)
	if err != nil {
		return nil, nil, err
	}
	c, err := ReadCites(citesPath, ids)
	if err != nil {
		return nil, nil, err
	}
	d.Stats = map[string]float64{
		"cites.edges":   float64(c.Graph.NNZ()),
		"cites.self":    float64(c.Self),
		"cites.unknown": float64(c.Unknown),
	}
	d.Notes = append(d.Notes, fmt.Sprintf("%s: %d papers × %d binary words, %d classes; %d citation lines (%d naming unknown papers, %d self-citations); the citation graph is not attached to the dataset",
		filepath.Base(contentPath), d.Rows(), d.Cols(), len(d.Classes), c.Lines, c.Unknown, c.Self))
	return d, c, nil
}
