package compress

import "slices"

// minShift and maxBins set the blocks of the string order: 2^minShift
// pointers at least, whose pairs (16 bytes each) fill half a megabyte,
// within a core's L2 cache; larger blocks when there would be maxBins or
// more, as the z-step reads and writes one stream per bin at once (on a
// 4× slice of 20 Newsgroups, 56 streams cost the z-step 10–20 % more
// than 7).
const (
	minShift = 15
	maxBins  = 32
)

// transfer moves values between the two orders of the pointers of strings
// with several pointers: the slot order of the z-step (documents in turn)
// and the string order of the w-step (each string's pointers side by
// side, position g). A direct gather from one order into the other
// touches a random cache line — and, on a large corpus, a random page —
// per pointer, so its cost per pointer grows with the corpus. The transfer
// goes through bins instead (propagation blocking): the string order is
// cut into blocks of 2^shift positions or a little more (a block ends
// between two strings), and bin b of the buffer is the positions of block
// b, holding block b's pointers in slot order. A pass in slot order then
// reads or writes as many sequential streams as there are blocks, and a
// pass per block permutes within the block. The solver's z-step is the
// slot-order pass (it reads each pointer's w from its buffer position and
// writes its z and y there), the w-step runs the block passes, a block at
// a time, into a block-sized scratch. The values moved are the same bits
// as a direct gather's. The buffer is where the solver keeps these
// pointers' w, z and y (a triple per position), so that they are stored
// once.
type transfer struct {
	pos []int32  // per pointer, in slot order: its buffer position
	off []uint32 // per buffer position e in bin b: its g − lo[b]
	lo  []int32  // block b is the positions lo[b] … lo[b+1]−1
	str []int32  // block b holds the strings str[b] … str[b+1]−1
}

// newTransfer returns the transfer of the pointers of strings 0 … nMulti−1
// for the slots' strings str, a string's pointers in slot order at
// positions grpPtr[s] … grpPtr[s+1]−1, with blocks of 2^shift pointers
// at least (minShift but in tests).
func newTransfer(str []int32, nMulti int, grpPtr []int32, shift int) *transfer {
	m := int(grpPtr[nMulti])
	t := &transfer{pos: make([]int32, 0, m), off: make([]uint32, m), lo: []int32{0}, str: []int32{0}}
	for m>>shift >= maxBins {
		shift++
	}
	blk := make([]uint8, nMulti) // per string: its block
	for s := range nMulti {
		if int(grpPtr[s]-t.lo[len(t.lo)-1]) >= 1<<shift {
			t.lo, t.str = append(t.lo, grpPtr[s]), append(t.str, int32(s))
		}
		blk[s] = uint8(len(t.lo) - 1)
	}
	t.lo, t.str = append(t.lo, int32(m)), append(t.str, int32(nMulti))
	fill := make([]int32, nMulti)
	copy(fill, grpPtr[:nMulti])
	next := make([]int32, t.blocks())
	copy(next, t.lo)
	for _, s := range str {
		if s < 0 || int(s) >= nMulti {
			continue
		}
		g := fill[s]
		fill[s]++
		b := blk[s]
		e := next[b]
		next[b]++
		t.pos = append(t.pos, e)
		t.off[e] = uint32(g - t.lo[b])
	}
	return t
}

// len returns the number of pointers.
func (t *transfer) len() int { return len(t.off) }

// blocks returns the number of blocks.
func (t *transfer) blocks() int { return len(t.lo) - 1 }

// block returns the positions [lo, hi) of block b.
func (t *transfer) block(b int) (lo, hi int) { return int(t.lo[b]), int(t.lo[b+1]) }

// g returns the string-order position of buffer position e.
func (t *transfer) g(e int) int {
	b, _ := slices.BinarySearch(t.lo, int32(e)+1) // the first block after e's
	return int(t.lo[b-1]) + int(t.off[e])
}

// unbin is the block pass of the gather of block b: the z and y of the
// positions g of block b, in string order (pairs side by side: position
// g at 2(g − lo), 2(g − lo)+1 of dst, lo the block's first), from the
// buffer's positions of bin b (triples w, z, y: position e at
// 3e … 3e+2).
func (t *transfer) unbin(b int, buf, dst []float64) {
	lo, hi := t.block(b)
	buf = buf[3*lo : 3*hi]
	for e, o := range t.off[lo:hi] {
		dst[2*int(o)], dst[2*int(o)+1] = buf[3*e+1], buf[3*e+2]
	}
}

// bin is the block pass of the scatter of block b: the first value of
// the pair of each position g of block b (src as unbin's dst) to the
// first of its buffer position's triple.
func (t *transfer) bin(b int, src, buf []float64) {
	lo, hi := t.block(b)
	buf = buf[3*lo : 3*hi]
	for e, o := range t.off[lo:hi] {
		buf[3*e] = src[2*int(o)]
	}
}
