package compress

import (
	"math/rand/v2"
	"testing"
)

// TestIDTable inserts keys (0 among them, and many more than the table
// was sized for, so that it grows) and finds each with its id.
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
}
