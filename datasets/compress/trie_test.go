package compress

import (
	"math/rand/v2"
	"testing"
)

// TestIDTable inserts keys (0 among them, and many more than the table
// was sized for, so that it grows) and finds each with its id; after a
// reset, of the same size, each is new again.
func TestIDTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	tab := newIDTable(10)
	want := map[uint64]int32{}
	for i := range 20000 {
		key := uint64(rng.IntN(8000)) << (32 * uint(i%2)) // low and high halves
		if i == 0 {
			key = 0
		}
		id, added := tab.getOrPut(key, int32(len(want)))
		old, ok := want[key]
		switch {
		case added == ok:
			t.Fatalf("key %#x: added %v, seen before %v", key, added, ok)
		case ok && id != old:
			t.Fatalf("key %#x: id %d, first given %d", key, id, old)
		case !ok:
			want[key] = id
		}
	}
	if tab.n != len(want) || 2*tab.n > len(tab.ids) {
		t.Errorf("%d keys in a table of %d holding %d", len(want), len(tab.ids), tab.n)
	}
	size := len(tab.ids)
	tab.reset()
	for key, old := range want {
		if id, added := tab.getOrPut(key, old+1); !added || id != old+1 {
			t.Fatalf("after reset: key %#x has id %d", key, id)
		}
	}
	if tab.n != len(want) || len(tab.ids) != size {
		t.Errorf("after reset: %d keys in a table of %d (was %d) holding %d", len(want), len(tab.ids), size, tab.n)
	}
}
