// Package registry holds named plugins of one kind: the one implementation
// behind repro's method, dataset, transform, metric, splitter, selector,
// protocol and query-strategy registries.
//
// A plugin package registers itself from init, as image formats and
// database/sql drivers do:
//
//	var Methods = registry.New[*Plugin]("method")
//
//	func init() { Methods.Register("lasso", &Plugin{…}) }
//
// Lookup of an unknown name returns an *UnknownError that lists the
// registered names and suggests the closest one.
package registry

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Registry maps names to plugins of type T. It is safe for concurrent use.
type Registry[T any] struct {
	kind string
	mu   sync.RWMutex
	m    map[string]T
}

// New returns an empty registry whose errors call its plugins kind
// ("method", "dataset", …).
func New[T any](kind string) *Registry[T] {
	return &Registry[T]{kind: kind, m: map[string]T{}}
}

// Kind returns the kind of plugin the registry holds.
func (r *Registry[T]) Kind() string { return r.kind }

// Register makes p available under name. It panics if name is empty or
// already registered: both are programming errors found at init.
func (r *Registry[T]) Register(name string, p T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if name == "" {
		panic("registry: Register of an empty " + r.kind + " name")
	}
	if _, dup := r.m[name]; dup {
		panic("registry: Register called twice for " + r.kind + " " + name)
	}
	r.m[name] = p
}

// Lookup returns the plugin called name, or an *UnknownError.
func (r *Registry[T]) Lookup(name string) (T, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if p, ok := r.m[name]; ok {
		return p, nil
	}
	var zero T
	known := r.names()
	return zero, &UnknownError{Kind: r.kind, Name: name, Known: known, Suggest: Closest(name, known)}
}

// Names returns the registered names, sorted.
func (r *Registry[T]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.names()
}

func (r *Registry[T]) names() []string {
	out := make([]string, 0, len(r.m))
	for k := range r.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// UnknownError reports a plugin name that is not registered.
type UnknownError struct {
	Kind, Name string
	Known      []string
	Suggest    string
}

func (e *UnknownError) Error() string {
	s := fmt.Sprintf("unknown %s %s", e.Kind, quote(e.Name))
	if e.Suggest != "" {
		s += fmt.Sprintf(" (did you mean %q?)", e.Suggest)
	}
	return s + fmt.Sprintf("; registered: %v", e.Known)
}

// quote quotes a name for a message, cut to a readable length as
// param.Quote does (param depends on this package).
func quote(s string) string {
	const at, keep = 64, 40
	if utf8.RuneCountInString(s) <= at {
		return strconv.Quote(s)
	}
	r := []rune(s)
	return strconv.Quote(string(r[:keep])+"…") + fmt.Sprintf(" (%d characters)", len(r))
}

// Closest returns the candidate nearest to s by edit distance, or "" if none
// is close enough to be a plausible typo.
func Closest(s string, candidates []string) string {
	n := utf8.RuneCountInString(s)
	best, bestD := "", n/2+2
	for _, c := range candidates {
		// The lengths bound the distance from below: a long name is
		// not compared with short ones at all.
		if diff := n - utf8.RuneCountInString(c); diff >= bestD || -diff >= bestD {
			continue
		}
		if d := levenshtein(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
