package compress

// idTable maps the trie's keys (a string's id and the next word's) to
// string ids: an open-addressing hash table with linear probing. Indexing
// a corpus looks up k keys per word, most of them new k-grams; a Go map
// takes two lookups to insert and touches several cache lines per lookup
// in a large table, this one probes one line, mostly, and inserts in the
// same probe.
type idTable struct {
	keys  []uint64
	ids   []int32 // −1: empty
	n     int
	mask  uint64
	shift uint
}

// newIDTable returns a table sized for about n keys.
func newIDTable(n int) *idTable {
	size := 1 << 10
	for size < 2*n {
		size <<= 1
	}
	t := &idTable{}
	t.alloc(size)
	return t
}

// reset empties the table, keeping its size.
func (t *idTable) reset() {
	for i := range t.ids {
		t.ids[i] = -1
	}
	t.n = 0
}

func (t *idTable) alloc(size int) {
	t.keys = make([]uint64, size)
	t.ids = make([]int32, size)
	t.reset()
	t.mask = uint64(size - 1)
	t.shift = 64
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
}

// slot returns the position of key: its own, or the empty one where it
// belongs.
func (t *idTable) slot(key uint64) uint64 {
	i := (key * 0x9e3779b97f4a7c15) >> t.shift
	for t.ids[i] >= 0 && t.keys[i] != key {
		i = (i + 1) & t.mask
	}
	return i
}

// getOrPut returns key's id, inserting it with id next if absent (and
// then reports so).
func (t *idTable) getOrPut(key uint64, next int32) (int32, bool) {
	i := t.slot(key)
	if id := t.ids[i]; id >= 0 {
		return id, false
	}
	t.keys[i], t.ids[i] = key, next
	t.n++
	if 2*t.n > len(t.ids) {
		keys, ids, n := t.keys, t.ids, t.n
		t.alloc(2 * len(ids))
		t.n = n
		for j, id := range ids {
			if id >= 0 {
				k := t.slot(keys[j])
				t.keys[k], t.ids[k] = keys[j], id
			}
		}
	}
	return next, true
}
