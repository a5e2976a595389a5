package methods_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/repro-ml/repro/methods"
)

// TestRememberShares checks that a key is computed once, even by
// concurrent callers, that keys differing in Op or Args are separate
// entries, and that errors are cached like values.
func TestRememberShares(t *testing.T) {
	env := &methods.Env{Memo: &methods.Memo{}}
	var calls atomic.Int64
	compute := func() ([]float64, error) {
		calls.Add(1)
		return []float64{1, 2}, nil
	}
	key := methods.Key{Op: "test.gram", Args: "rbf:1"}
	var wg sync.WaitGroup
	got := make([][]float64, 8)
	for i := range got {
		wg.Go(func() {
			v, err := methods.Remember(env, key, compute)
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		})
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("computed %d times, want once", n)
	}
	for i, v := range got {
		if &v[0] != &got[0][0] {
			t.Errorf("caller %d got another slice", i)
		}
	}
	for _, other := range []methods.Key{{Op: "test.gram", Args: "rbf:2"}, {Op: "test.dots", Args: "rbf:1"}} {
		if _, err := methods.Remember(env, other, compute); err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("computed %d times for three keys, want 3", n)
	}

	boom := errors.New("boom")
	for range 2 {
		_, err := methods.Remember(env, methods.Key{Op: "test.fail"}, func() (int, error) {
			calls.Add(1)
			return 0, boom
		})
		if !errors.Is(err, boom) {
			t.Errorf("error %v, want %v", err, boom)
		}
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("a failed computation ran %d times, want once", n-3)
	}
}

// TestRememberTypeMismatch checks that a key reused with another type is an
// error naming both types, not a panic.
func TestRememberTypeMismatch(t *testing.T) {
	tests := []struct {
		name  string
		first func(env *methods.Env, k methods.Key) error
		then  func(env *methods.Env, k methods.Key) error
		want  string
	}{
		{"slice then pointer",
			func(env *methods.Env, k methods.Key) error {
				_, err := methods.Remember(env, k, func() ([]float64, error) { return nil, nil })
				return err
			},
			func(env *methods.Env, k methods.Key) error {
				_, err := methods.Remember(env, k, func() (*int, error) { return new(int), nil })
				return err
			},
			"memo key test.k(a=1) holds a []float64, not a *int"},
		{"failed computation, other type",
			func(env *methods.Env, k methods.Key) error {
				methods.Remember(env, k, func() (string, error) { return "", errors.New("boom") })
				return nil
			},
			func(env *methods.Env, k methods.Key) error {
				_, err := methods.Remember(env, k, func() (int, error) { return 1, nil })
				return err
			},
			"holds a string, not a int"},
		{"nil interface value",
			func(env *methods.Env, k methods.Key) error {
				_, err := methods.Remember(env, k, func() (error, error) { return nil, nil })
				return err
			},
			func(env *methods.Env, k methods.Key) error {
				v, err := methods.Remember(env, k, func() (error, error) { return errors.New("recomputed"), nil })
				if err == nil && v != nil {
					return fmt.Errorf("got %v, want the cached nil", v)
				}
				return err
			},
			""},
	}
	for _, tt := range tests {
		env := &methods.Env{Memo: &methods.Memo{}}
		k := methods.Key{Op: "test.k", Args: "a=1"}
		if err := tt.first(env, k); err != nil {
			t.Fatalf("%s: first: %v", tt.name, err)
		}
		err := tt.then(env, k)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestRememberWithoutMemo(t *testing.T) {
	calls := 0
	for _, env := range []*methods.Env{nil, {}, {}} {
		v, err := methods.Remember(env, methods.Key{Op: "test.k"}, func() (int, error) { calls++; return calls, nil })
		if err != nil || v != calls {
			t.Errorf("got %v, %v; want %d, nil", v, err, calls)
		}
	}
	if calls != 3 {
		t.Errorf("fn ran %d times without a memo, want 3", calls)
	}
}

func TestContentID(t *testing.T) {
	a := []float64{1, 2, 3}
	b := append([]float64(nil), a...)
	if methods.ContentID(a) != methods.ContentID(b) {
		t.Error("equal slices at different addresses have different IDs")
	}
	for _, c := range [][]float64{{1, 2}, {1, 2, 3, 0}, {1, 2, 4}, {3, 2, 1}} {
		if methods.ContentID(c) == methods.ContentID(a) {
			t.Errorf("%v and %v have the same ID", c, a)
		}
	}
	if methods.ContentID([]int{1, 2, 3}) == methods.ContentID(a) {
		t.Error("ints and floats of the same values have the same ID")
	}
}

func ExampleRemember() {
	memo := &methods.Memo{} // one per training set, shared by its fits
	gram := func(sigma string) ([]float64, error) {
		env := &methods.Env{Memo: memo}
		return methods.Remember(env, methods.Key{Op: "example.gram", Args: "rbf:" + sigma}, func() ([]float64, error) {
			fmt.Println("computing the Gram matrix of rbf:" + sigma)
			return []float64{1, 0.5, 0.5, 1}, nil
		})
	}
	gram("1")
	gram("1") // a second grid point with the same kernel: cached
	gram("2")
	// Output:
	// computing the Gram matrix of rbf:1
	// computing the Gram matrix of rbf:2
}
