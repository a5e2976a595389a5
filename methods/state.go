package methods

import "sync"

// State holds what a method carries from one fit of a trial to the next,
// when a protocol refits it as the trial goes on: the batches of an
// active-learning trial refit on a growing labelled set, and a method that
// searches a size (DDR's number of components) starts from the size the
// previous batch chose. The runner passes a trial's State to the fits the
// protocol makes, in order, and not to the fits of a select rule, so what
// a method stores depends on the trial alone: results stay deterministic.
// A nil *State stores nothing.
type State struct {
	mu sync.Mutex
	m  map[string]any
}

// Load returns the value stored under key, if there is one of type T.
func Load[T any](s *State, key string) (T, bool) {
	var zero T
	if s == nil {
		return zero, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key].(T)
	if !ok {
		return zero, false
	}
	return v, true
}

// Store stores v under key.
func Store[T any](s *State, key string, v T) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]any{}
	}
	s.m[key] = v
}
