package kernel

import (
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/repro-ml/repro/matrix"
	"github.com/repro-ml/repro/methods"
)

// dotsKey names the training rows' Dots in a memo.
var dotsKey = methods.Key{Op: "kernel.dots"}

// gramKey names the training Gram matrix of k (normalized or not) in a memo.
func gramKey(k Kernel, normalize bool) methods.Key {
	return methods.Key{Op: "kernel.gram", Args: k.String() + "/normalize=" + strconv.FormatBool(normalize)}
}

// TrainDots returns the training rows' inner products, computed once per
// training set through env's memo (env may be nil).
func TrainDots(env *methods.Env, X matrix.Matrix) (*Dots, error) {
	return methods.Remember(env, dotsKey, func() (*Dots, error) { return NewDots(X, X), nil })
}

// gramsComputed counts the training Gram matrices CachedGram computed.
var gramsComputed atomic.Int64

// GramsComputed returns how many training Gram matrices CachedGram has
// computed in this process (cache misses; hits are not counted). Tests use
// it to check that grid points share their kernel matrices.
func GramsComputed() int64 { return gramsComputed.Load() }

// CachedGram returns the Gram matrix of k on the training rows X, computed
// once per training set (and kernel) through env's memo and shared by every
// grid point that asks for it. Callers must not modify it.
func CachedGram(env *methods.Env, X matrix.Matrix, k Kernel, normalize bool) ([]float64, error) {
	return methods.Remember(env, gramKey(k, normalize), func() ([]float64, error) {
		d, err := TrainDots(env, X)
		if err != nil {
			return nil, err
		}
		if r, _ := X.Dims(); d.R != r {
			return nil, fmt.Errorf("kernel: cached dots have %d rows, training set %d", d.R, r)
		}
		gramsComputed.Add(1)
		return d.Matrix(k, normalize), nil
	})
}

// DefaultCacheMB is the default budget of a kernel-column cache, in MB,
// of every method's cache_mb (svm, med): libsvm's default of 100 MB holds
// its columns in float32, repro's are float64.
const DefaultCacheMB = 200.0

// Cache keeps recently used kernel columns of a Columns within a declared
// budget of bytes, least recently used first out, as libsvm's kernel cache
// (svm-train -m): a solver asks for the first length entries of a column
// (its active set, under shrinking) and only the entries the cache does
// not hold are computed. Swap exchanges two positions in the Columns and
// in every cached column. A column returned by Column stays valid until a
// later call to Column evicts it; the budget always holds two full
// columns, so the column asked for just before the current one survives.
// Beside the budget it keeps the storage of up to four evicted columns
// for reuse. Without Swap, positions are the rows of X: Column(i, n) is
// column i of the kernel matrix (what a solver without shrinking, such
// as MED's, asks for). A Cache is not safe for concurrent use.
type Cache struct {
	cols       *Columns
	free       int64 // floats the budget still allows
	data       [][]float64
	prev, next []int // the LRU list of cached columns; n is its head
	spare      [][]float64
	computed   int64
}

// NewCache returns a cache of cols' columns holding at most bytes bytes of
// them (but at least two full columns).
func NewCache(cols *Columns, bytes int64) *Cache {
	n := cols.Len()
	c := &Cache{cols: cols, free: max(bytes/8, 2*int64(n)), data: make([][]float64, n), prev: make([]int, n+1), next: make([]int, n+1)}
	c.prev[n], c.next[n] = n, n
	return c
}

// Columns returns the columns the cache computes.
func (c *Cache) Columns() *Columns { return c.cols }

// Computed returns the number of kernel entries computed so far (misses).
func (c *Cache) Computed() int64 { return c.computed }

func (c *Cache) unlink(p int) {
	c.next[c.prev[p]] = c.next[p]
	c.prev[c.next[p]] = c.prev[p]
}

func (c *Cache) pushBack(p int) {
	h := len(c.data)
	c.prev[p], c.next[p] = c.prev[h], h
	c.next[c.prev[h]] = p
	c.prev[h] = p
}

// evict drops the least recently used column, keeping its storage for
// reuse.
func (c *Cache) evict() {
	h := len(c.data)
	p := c.next[h]
	c.unlink(p)
	c.free += int64(len(c.data[p]))
	c.spare = append(c.spare[:min(len(c.spare), 3)], c.data[p][:0])
	c.data[p] = nil
}

// Column returns k(x_p, x_q) for the positions q < length.
func (c *Cache) Column(p, length int) []float64 {
	if length <= 0 {
		return nil
	}
	d := c.data[p]
	have := len(d)
	if have > 0 {
		c.unlink(p)
	}
	if more := int64(length - have); more > 0 {
		for c.free < more {
			c.evict()
		}
		c.free -= more
		if cap(d) < length {
			nd := c.take(length)
			copy(nd, d)
			d = nd
		}
		d = d[:length]
		c.cols.Fill(p, d, have)
		c.computed += more
		c.data[p] = d
	}
	c.pushBack(p)
	return d[:length]
}

// take returns a slice of length n, from the storage of an evicted column
// when one is large enough.
func (c *Cache) take(n int) []float64 {
	for k := len(c.spare) - 1; k >= 0; k-- {
		if s := c.spare[k]; cap(s) >= n {
			c.spare = append(c.spare[:k], c.spare[k+1:]...)
			return s[:n]
		}
	}
	return make([]float64, n)
}

// Swap exchanges positions p and q in the columns and in every cached
// column; a cached column holding one of them but not the other is
// dropped (libsvm's Cache::swap_index).
func (c *Cache) Swap(p, q int) {
	if p == q {
		return
	}
	c.cols.Swap(p, q)
	h := len(c.data)
	if len(c.data[p]) > 0 {
		c.unlink(p)
	}
	if len(c.data[q]) > 0 {
		c.unlink(q)
	}
	c.data[p], c.data[q] = c.data[q], c.data[p]
	if len(c.data[p]) > 0 {
		c.pushBack(p)
	}
	if len(c.data[q]) > 0 {
		c.pushBack(q)
	}
	if p > q {
		p, q = q, p
	}
	for t := c.next[h]; t != h; {
		nt := c.next[t]
		if d := c.data[t]; len(d) > p {
			if len(d) > q {
				d[p], d[q] = d[q], d[p]
			} else {
				c.unlink(t)
				c.free += int64(len(d))
				c.data[t] = nil
			}
		}
		t = nt
	}
}
