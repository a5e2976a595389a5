package compress

import (
	"context"
	"sync"
	"sync/atomic"
)

// parallel calls fn(task, worker) for task = 0 … n−1 on workers
// goroutines (worker = 0 … workers−1 says which one runs the task, for its
// scratch space) and stops early when ctx is done or fn fails; it returns
// the first error by task order.
func parallel(ctx context.Context, workers, n int, fn func(task, worker int) error) error {
	var next atomic.Int64
	var stop atomic.Bool
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				t := int(next.Add(1)) - 1
				if t >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[t] = err
					stop.Store(true)
					return
				}
				if err := fn(t, w); err != nil {
					errs[t] = err
					stop.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
