package runner

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// lruCache.start computes a value once: a second caller while the first
// computes gets wait, which returns the first's value when it is there;
// a caller after that gets the value at once.
func TestLRUStartWaits(t *testing.T) {
	c := newLRU[int](4)
	release := make(chan struct{})
	computing := make(chan struct{})
	var first sync.WaitGroup
	first.Add(1)
	go func() {
		defer first.Done()
		v, err, wait := c.start("k", func() (int, error) {
			close(computing)
			<-release
			return 7, nil
		})
		if v != 7 || err != nil || wait != nil {
			t.Errorf("computing caller: %v, %v, wait %v; want 7, nil, nil", v, err, wait != nil)
		}
	}()
	<-computing
	_, _, wait := c.start("k", func() (int, error) {
		t.Error("second computation of k")
		return 0, nil
	})
	if wait == nil {
		t.Fatal("start while another caller computes: no wait")
	}
	got := make(chan int)
	go func() {
		v, err := wait()
		if err != nil {
			t.Error(err)
		}
		got <- v
	}()
	select {
	case v := <-got:
		t.Fatalf("wait returned %d before the value was computed", v)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if v := <-got; v != 7 {
		t.Errorf("wait returned %d, want 7", v)
	}
	first.Wait()
	v, err, wait := c.start("k", nil)
	if v != 7 || err != nil || wait != nil {
		t.Errorf("after the computation: %v, %v, wait %v; want 7, nil, nil", v, err, wait != nil)
	}
}

// A failed or panicking computation is not kept: its waiters get the
// error, and the next caller computes again.
func TestLRUStartFailure(t *testing.T) {
	c := newLRU[int](4)
	boom := errors.New("boom")
	if _, err, _ := c.start("k", func() (int, error) { return 0, boom }); err != boom {
		t.Fatalf("err %v, want %v", err, boom)
	}
	if v, err := c.get("k", func() (int, error) { return 3, nil }); v != 3 || err != nil {
		t.Fatalf("after a failure: %v, %v; want a new computation's 3", v, err)
	}

	release := make(chan struct{})
	computing := make(chan struct{})
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }()
		c.start("p", func() (int, error) {
			close(computing)
			<-release
			panic("fit panicked")
		})
	}()
	<-computing
	_, _, wait := c.start("p", nil)
	if wait == nil {
		t.Fatal("no wait while p is computed")
	}
	close(release)
	if p := <-done; p != "fit panicked" {
		t.Errorf("the computing caller recovered %v, want the panic", p)
	}
	if _, err := wait(); err == nil {
		t.Error("waiter of a panicked computation: no error")
	}
	if v, err := c.get("p", func() (int, error) { return 5, nil }); v != 5 || err != nil {
		t.Errorf("after a panic: %v, %v; want a new computation's 5", v, err)
	}
}
