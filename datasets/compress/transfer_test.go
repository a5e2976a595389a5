package compress

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestTransfer moves slot numbers through the transfer with small blocks
// and checks that blocks end between strings, that each string's pointers
// arrive at its positions in slot order, and back.
func TestTransfer(t *testing.T) {
	docs := randomDocs(rand.New(rand.NewPCG(7, 8)), 30, 40, 4)
	p, err := newProblem(context.Background(), docs, 3, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, shift := range []int{0, 1, 3, 6, minShift} {
		tr := newTransfer(p.str, p.nMulti, p.grpPtr, shift)
		m := tr.len()
		if shift == 0 && tr.blocks() < maxBins/2 {
			t.Fatalf("shift 0: %d blocks; want at least %d for %d pointers", tr.blocks(), maxBins/2, m)
		}
		var slots []int32 // the pointers' slots, increasing
		for slot, s := range p.str {
			if s >= 0 && int(s) < p.nMulti {
				slots = append(slots, int32(slot))
			}
		}
		// Slot order → buffer (as the z-step writes it) → string order.
		buf, got := make([]float64, 3*m), make([]float64, 2*m)
		for i, slot := range slots {
			e := tr.pos[i]
			buf[3*e], buf[3*e+1], buf[3*e+2] = -1, float64(slot), -float64(slot)
		}
		for b := range tr.blocks() {
			lo, hi := tr.block(b)
			if b > 0 && (p.grpPtr[tr.str[b]] != int32(lo) || hi-lo < 1<<shift && b+1 < tr.blocks()) {
				t.Fatalf("shift %d: block %d is [%d, %d), its first string %d starts at %d", shift, b, lo, hi, tr.str[b], p.grpPtr[tr.str[b]])
			}
			tr.unbin(b, buf, got[2*lo:])
		}
		for i, slot := range slots {
			if g := tr.g(int(tr.pos[i])); got[2*g] != float64(slot) {
				t.Fatalf("shift %d: slot %d is at string position %d, which holds %v", shift, slot, g, got[2*g])
			}
		}
		g := 0
		for s := range p.nMulti {
			prev := -1.0
			for ; g < int(p.grpPtr[s+1]); g++ {
				slot := got[2*g]
				if int(p.str[int(slot)]) != s || slot <= prev || got[2*g+1] != -slot {
					t.Fatalf("shift %d: position %d of string %d holds slot %v (string %d), %v; previous slot %v",
						shift, g, s, slot, p.str[int(slot)], got[2*g+1], prev)
				}
				prev = slot
			}
		}
		// String order → buffer (w only) → slot order (as the z-step reads it).
		for g := range m {
			got[2*g] = got[2*g] + 0.5
		}
		for b := range tr.blocks() {
			lo, _ := tr.block(b)
			tr.bin(b, got[2*lo:], buf)
		}
		for i, slot := range slots {
			e := tr.pos[i]
			if w, z, y := buf[3*e], buf[3*e+1], buf[3*e+2]; w != float64(slot)+0.5 || z != float64(slot) || y != -float64(slot) {
				t.Fatalf("shift %d: slot %d gets %v, %v, %v back", shift, slot, w, z, y)
			}
		}
	}
}

// TestTransferBlocks solves with one block and with many (on three
// workers, each reusing its scratch from block to block): the iterates
// agree bit for bit.
func TestTransferBlocks(t *testing.T) {
	docs := randomDocs(rand.New(rand.NewPCG(9, 10)), 40, 60, 5)
	var ws [][]float64
	for _, shift := range []int{minShift, 2} {
		p, err := newProblem(context.Background(), docs, 4, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		p.tr = newTransfer(p.str, p.nMulti, p.grpPtr, shift)
		s := newSolver(p, 0.3, 3)
		for round := range 2 {
			if round > 0 {
				s.reweight(0.1)
			}
			if _, err := s.admm(context.Background(), 1e-4, 500); err != nil {
				t.Fatal(err)
			}
		}
		ws = append(ws, s.wvec())
	}
	for j := range ws[0] {
		if ws[0][j] != ws[1][j] {
			t.Fatalf("slot %d: w = %v with one block, %v with blocks of 4", j, ws[0][j], ws[1][j])
		}
	}
}
