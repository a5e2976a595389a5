package runner

import (
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

func infoOf(ds *spec.DatasetSpec, d *datasets.Dataset) results.DatasetInfo {
	return results.DatasetInfo{Plugin: ds.Name, Rows: d.Rows(), Cols: d.Cols(), Classes: d.Classes, Stats: d.Stats, Notes: d.Notes}
}

// LoadDataset loads the dataset of ds with the plugin it names and applies
// its corpus-level transforms (those without fit:) in order; transforms
// fitted per trial are applied by the trial. Each transform's output is cached in
// env.CacheDir under a hash of its input's content, the transform's name,
// version and params: a second load with the same inputs reads the cache.
func LoadDataset(ctx context.Context, env datasets.Env, ds *spec.DatasetSpec) (*datasets.Dataset, error) {
	return loadDataset(ctx, env, ds, NoMemLimit)
}

// loadDataset is LoadDataset refusing, with a *MemoryError, a
// corpus-level transform whose memory estimate (datasets.Transform.Memory)
// exceeds memLimit; memLimit ≤ 0: no check.
func loadDataset(ctx context.Context, env datasets.Env, ds *spec.DatasetSpec, memLimit int64) (*datasets.Dataset, error) {
	return loadDatasetIn(ctx, env, ds, memLimit, nil)
}

// loadDatasetIn is loadDataset holding, while the loader runs and while
// each corpus-level transform runs, its memory estimate in budget (if not
// nil; datasets.Loader.Memory, datasets.Transform.MemoryOf), as a fit
// holds its own: the run's datasets load beside its trials under one
// limit, and a large load or transform waits for the fits running.
func loadDatasetIn(ctx context.Context, env datasets.Env, ds *spec.DatasetSpec, memLimit int64, budget *memBudget) (*datasets.Dataset, error) {
	l, err := datasets.Lookup(ds.Name)
	if err != nil {
		return nil, err
	}
	need := int64(0)
	if budget != nil && l.Memory != nil {
		need = l.Memory(env, ds.Params)
	}
	if need > 0 {
		if err := budget.acquire(ctx, need); err != nil {
			return nil, fmt.Errorf("dataset %q: %w", ds.ID, err)
		}
	}
	d, err := l.Load(ctx, env, ds.Params)
	if budget != nil {
		budget.release(need)
	}
	if err != nil {
		return nil, fmt.Errorf("dataset %q: %w", ds.ID, err)
	}
	d.Name = ds.ID // what methods' and transforms' errors call it
	prep := d.Prep // the loader's row-fitted preprocessing, refitted per trial
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if err := d.CheckClasses(); err != nil {
		return nil, fmt.Errorf("dataset %q: %w", ds.ID, err)
	}
	for _, ts := range ds.Transforms {
		if ts.PerTrial() {
			continue // fitted inside each trial
		}
		t, err := datasets.LookupTransform(ts.Name)
		if err != nil {
			return nil, err
		}
		if t.Apply == nil {
			return nil, fmt.Errorf("dataset %q: transform %q is fitted per trial; want fit: pool or fit: train", ds.ID, ts.Name)
		}
		key := cacheKey(d, ts, t.Version)
		path := ""
		if env.CacheDir != "" {
			path = filepath.Join(env.CacheDir, "transforms", key+".gob")
			if cached, err := readCache(path); err == nil {
				d = cached
				continue
			}
		}
		if err := transformMemory(t, ts, d, memLimit); err != nil {
			return nil, fmt.Errorf("dataset %q: %w", ds.ID, err)
		}
		need := int64(0)
		if budget != nil {
			need, _ = transformNeed(t, ts, d)
		}
		if need > 0 {
			if err := budget.acquire(ctx, need); err != nil {
				return nil, fmt.Errorf("dataset %q: %w", ds.ID, err)
			}
		}
		out, err := t.Apply(ctx, env, d, ts.Params)
		if budget != nil {
			budget.release(need)
		}
		if err != nil {
			return nil, fmt.Errorf("dataset %q: transform %q: %w", ds.ID, ts.Name, err)
		}
		if err := out.Validate(); err != nil {
			return nil, fmt.Errorf("transform %q: %w", ts.Name, err)
		}
		if path != "" {
			if err := writeCache(path, out); err != nil {
				return nil, fmt.Errorf("transform %q: caching: %w", ts.Name, err)
			}
		}
		d = out
		d.Name = ds.ID
	}
	prepNote(d, prep, ds)
	return d, nil
}

// residentBytes estimates the memory dataset d holds: its matrix (dense,
// or CSR's pointers, indices and values), labels, given split, feature
// graphs, column groups, and strings (documents, feature names), each
// string with its header.
func residentBytes(d *datasets.Dataset) int64 {
	r, _ := d.X.Dims()
	x := methods.CSRBytes(r, d.X.NNZ())
	if _, dense := d.X.(*matrix.Dense); dense {
		x = methods.Floats(d.X.NNZ())
	}
	b := methods.Bytes(x, methods.Floats(len(d.Y)), int64(len(d.Split)), stringBytes(d.Text), stringBytes(d.Features), stringBytes(d.Classes))
	for _, g := range d.Graphs {
		b = methods.Bytes(b, methods.CSRBytes(g.R, g.NNZ()))
	}
	for _, g := range d.Groups {
		b = methods.Bytes(b, methods.Floats(len(g.Columns)), int64(len(g.Name)))
	}
	return b
}

// stringBytes returns the bytes of ss: each string's header and content.
func stringBytes(ss []string) int64 {
	b := methods.Floats(2, len(ss))
	for _, s := range ss {
		b = methods.Bytes(b, int64(len(s)))
	}
	return b
}

// residentCharge is what dataset d of entry ds holds in the run's memory
// budget while it is resident: residentBytes, plus the memory estimate
// (datasets.Transform.Memory) of each transform its trials fit (fit:
// pool, fit: train) at d's shape, for the fitted transforms and the
// transformed copies the trials share through the executor's caches.
func residentCharge(ds *spec.DatasetSpec, d *datasets.Dataset) int64 {
	b := residentBytes(d)
	for _, ts := range ds.Transforms {
		if !ts.PerTrial() {
			continue
		}
		if t, err := datasets.LookupTransform(ts.Name); err == nil {
			est, _ := t.MemoryOf(d, ts.Params)
			b = methods.Bytes(b, est)
		}
	}
	return b
}

// cacheKey hashes a dataset's content with a transform's identity.
func cacheKey(d *datasets.Dataset, ts spec.TransformSpec, version int) string {
	h := sha256.New()
	hashDataset(h, d)
	b, _ := json.Marshal(map[string]any{"name": ts.Name, "version": version, "params": spec.Canonical(ts.Params)})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func hashDataset(h hash.Hash, d *datasets.Dataset) {
	enc := json.NewEncoder(h)
	r, c := d.X.Dims()
	fmt.Fprintf(h, "%d %d %d\n", r, c, d.X.NNZ())
	var buf [8]byte
	put := func(v float64) {
		u := math.Float64bits(v)
		for i := range buf {
			buf[i] = byte(u >> (8 * i))
		}
		h.Write(buf[:])
	}
	for i := 0; i < r; i++ {
		d.X.Row(i, func(j int, v float64) { put(float64(j)); put(v) })
		put(math.Inf(1))
	}
	for _, y := range d.Y {
		put(y)
	}
	graphs := make([]string, 0, len(d.Graphs))
	for k := range d.Graphs {
		graphs = append(graphs, k)
	}
	sort.Strings(graphs)
	for _, k := range graphs {
		g := d.Graphs[k]
		fmt.Fprintf(h, "graph %s %d %d\n", k, g.R, g.C)
		enc.Encode([]any{g.Ptr, g.Ind, g.Val})
	}
	enc.Encode([]any{d.Classes, d.Features, d.Groups, d.Split, d.Text})
}

// cached is the on-disk form of a Dataset.
type cached struct {
	Name                           string
	Dense                          bool
	R, C                           int
	Data                           []float64
	Ptr                            []int
	Ind                            []int32 // gob reads the []int of caches written before CSR indices were int32
	Val                            []float64
	Y                              []float64
	Classes, Features, Text, Notes []string
	Groups                         []datasets.Group
	Split                          []datasets.Part
	Graphs                         map[string]*matrix.CSR
	Stats                          map[string]float64
}

func writeCache(path string, d *datasets.Dataset) error {
	c := cached{Name: d.Name, Y: d.Y, Classes: d.Classes, Features: d.Features, Text: d.Text, Notes: d.Notes,
		Groups: d.Groups, Split: d.Split, Graphs: d.Graphs, Stats: d.Stats}
	c.R, c.C = d.X.Dims()
	if dn, ok := d.X.(*matrix.Dense); ok {
		c.Dense, c.Data = true, dn.RawData()
	} else {
		s := matrix.ToCSR(d.X)
		c.Ptr, c.Ind, c.Val = s.Ptr, s.Ind, s.Val
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if err := gob.NewEncoder(tmp).Encode(&c); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func readCache(path string) (*datasets.Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var c cached
	if err := gob.NewDecoder(f).Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &datasets.Dataset{Name: c.Name, Y: c.Y, Classes: c.Classes, Features: c.Features, Text: c.Text,
		Notes: c.Notes, Groups: c.Groups, Split: c.Split, Graphs: c.Graphs, Stats: c.Stats}
	if c.Dense {
		if c.Data == nil {
			c.Data = make([]float64, c.R*c.C)
		}
		d.X = matrix.NewDense(c.R, c.C, c.Data)
	} else {
		if c.Ptr == nil {
			c.Ptr = make([]int, c.R+1)
		}
		m := &matrix.CSR{R: c.R, C: c.C, Ptr: c.Ptr, Ind: c.Ind, Val: c.Val}
		if err := m.Check(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		d.X = m
	}
	return d, d.Validate()
}
