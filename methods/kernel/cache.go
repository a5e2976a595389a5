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
