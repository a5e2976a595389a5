package runner

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/spec"
)

// Transforms fitted inside a trial (fit: pool, fit: train) are cached in
// memory by the content of the rows they are fitted on and their params,
// so the trials that share a pool — every method of one kfold fold — fit
// the pool's PCA once. A dataset's content is identified by a hash taken
// once when it loads; a transform's output by the key of its fit.

// lruCache is a bounded, concurrency-safe cache whose concurrent requests
// for one key compute its value once: the fitted transforms of the trials
// (fitCache), the data they produce, the full-pool scores of the active
// protocol.
type lruCache[V any] struct {
	mu    sync.Mutex
	cap   int
	order *list.List // of string keys, most recent first
	m     map[string]*lruEntry[V]
}

type lruEntry[V any] struct {
	claimed bool          // a caller is computing or has computed the value (under the cache's mu)
	done    chan struct{} // closed when f and err are set
	f       V
	err     error
	elem    *list.Element
}

// fitCache caches fitted transforms.
type fitCache = lruCache[datasets.Fitted]

func newFitCache(capacity int) *fitCache { return newLRU[datasets.Fitted](capacity) }

func newLRU[V any](capacity int) *lruCache[V] {
	return &lruCache[V]{cap: max(capacity, 1), order: list.New(), m: map[string]*lruEntry[V]{}}
}

// get returns the value under key, computing it with fit once. A failed
// fit is not kept: a later trial tries again.
func (c *lruCache[V]) get(key string, fit func() (V, error)) (V, error) {
	v, err, wait := c.start(key, fit)
	if wait != nil {
		return wait()
	}
	return v, err
}

// start is get without waiting for another caller's computation of the
// value: while one is under way it returns wait, which blocks until the
// value is there and returns it. Otherwise it returns the value, computing
// it with fit if no one has, and wait is nil.
func (c *lruCache[V]) start(key string, fit func() (V, error)) (v V, err error, wait func() (V, error)) {
	c.mu.Lock()
	e, ok := c.m[key]
	if ok {
		c.order.MoveToFront(e.elem)
	} else {
		e = &lruEntry[V]{done: make(chan struct{})}
		e.elem = c.order.PushFront(key)
		c.m[key] = e
		for c.order.Len() > c.cap {
			old := c.order.Back()
			c.order.Remove(old)
			delete(c.m, old.Value.(string))
		}
	}
	mine := !e.claimed
	e.claimed = true
	c.mu.Unlock()
	if !mine {
		select {
		case <-e.done:
			return e.f, e.err, nil
		default:
			return v, nil, func() (V, error) {
				<-e.done
				return e.f, e.err
			}
		}
	}
	finished := false
	defer func() {
		if !finished { // fit panicked: the waiters get an error, the panic goes on
			e.err = fmt.Errorf("computing %s: panicked", key)
		}
		if e.err != nil {
			c.mu.Lock()
			if c.m[key] == e {
				c.order.Remove(e.elem)
				delete(c.m, key)
			}
			c.mu.Unlock()
		}
		close(e.done)
	}()
	e.f, e.err = fit()
	finished = true
	return e.f, e.err, nil
}

// id returns the identity of the loaded dataset's content, a hash taken
// the first time it is asked for.
func (ld *loadedData) id() string {
	ld.idOnce.Do(func() {
		h := sha256.New()
		hashDataset(h, ld.data)
		ld.hash = hex.EncodeToString(h.Sum(nil)[:16])
	})
	return ld.hash
}

// fitted returns transform ts fitted on the rows of d, whose content has
// identity id, from the cache when another trial fitted it on the same
// rows of the same content, and the identity of its output. The transform
// sees the rows without labels unless it is supervised.
func (x *executor) fitted(ctx context.Context, d *datasets.Dataset, id string, rows []int, ts spec.TransformSpec) (datasets.Fitted, string, error) {
	tr, err := datasets.LookupTransform(ts.Name)
	if err != nil {
		return nil, "", err
	}
	if tr.Fit == nil {
		return nil, "", fmt.Errorf("transform %q cannot be fitted per trial (fit: %s); it runs on the whole dataset: remove fit", ts.Name, ts.Fit)
	}
	key := fitKey(id, rows, ts, tr.Version)
	f, err := x.fits.get(key, func() (datasets.Fitted, error) {
		view := d.Subset(rows)
		if !tr.Supervised {
			view.Y, view.Classes = nil, nil
		}
		if err := transformMemory(tr, ts, view, x.memLimit); err != nil {
			return nil, err
		}
		f, err := tr.Fit(ctx, x.env, view, ts.Params)
		if err != nil {
			return nil, fmt.Errorf("transform %q (fit: %s): %w", ts.Name, ts.Fit, err)
		}
		return f, nil
	})
	return f, key, err
}

// applyFitted applies f to d and checks the result keeps d's rows.
func applyFitted(f datasets.Fitted, d *datasets.Dataset, ts spec.TransformSpec) (*datasets.Dataset, error) {
	out, err := f.Transform(d)
	if err != nil {
		return nil, fmt.Errorf("transform %q: %w", ts.Name, err)
	}
	if out.Rows() != d.Rows() {
		return nil, fmt.Errorf("transform %q returned %d rows for %d", ts.Name, out.Rows(), d.Rows())
	}
	out.Y, out.Classes = d.Y, d.Classes
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("transform %q: %w", ts.Name, err)
	}
	return out, nil
}

// fitKey hashes what determines a fitted transform: the content it is
// fitted on (data identity and rows), the transform, its version and
// params.
func fitKey(dataID string, rows []int, ts spec.TransformSpec, version int) string {
	h := sha256.New()
	h.Write([]byte(dataID))
	var b [8]byte
	for _, r := range rows {
		binary.LittleEndian.PutUint64(b[:], uint64(r))
		h.Write(b[:])
	}
	id, _ := json.Marshal(map[string]any{"name": ts.Name, "version": version, "params": spec.Canonical(ts.Params), "fit": ts.Fit})
	h.Write(id)
	return hex.EncodeToString(h.Sum(nil)[:16])
}
