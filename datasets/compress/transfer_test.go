package compress

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestTransfer moves slot numbers through the transfer with small blocks
// and checks that each string's pointers arrive at its positions in slot
// order, and back.
func TestTransfer(t *testing.T) {
	docs := randomDocs(rand.New(rand.NewPCG(7, 8)), 30, 40, 4)
	p, err := newProblem(context.Background(), docs, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, shift := range []int{0, 1, 3, 6, minShift} {
		tr := newTransfer(p.str, p.nMulti, p.grpPtr, shift)
		m := tr.len()
		if shift == 0 && tr.blocks() < maxBins/2 {
			t.Fatalf("shift 0: %d blocks; want at least %d for %d pointers", tr.blocks(), maxBins/2, m)
		}
		// Slot order → buffer (as the z-step writes it) → string order.
		buf, got := make([]float64, 2*m), make([]float64, 2*m)
		for i, slot := range tr.slots {
			buf[2*tr.pos[i]], buf[2*tr.pos[i]+1] = float64(slot), -float64(slot)
		}
		for b := range tr.blocks() {
			tr.unbin(b, buf, got)
		}
		direct := make([]float64, m)
		tr.gather(direct, func(slot int) float64 { return float64(slot) })
		g := 0
		for s := range p.nMulti {
			prev := -1.0
			for ; g < int(p.grpPtr[s+1]); g++ {
				slot := got[2*g]
				if int(p.str[int(slot)]) != s || slot <= prev || got[2*g+1] != -slot || direct[g] != slot {
					t.Fatalf("shift %d: position %d of string %d holds slot %v (string %d), %v, direct %v; previous slot %v",
						shift, g, s, slot, p.str[int(slot)], got[2*g+1], direct[g], prev)
				}
				prev = slot
			}
		}
		// String order → buffer → slot order (as the z-step reads it).
		for g := range m {
			got[2*g] = got[2*g] + 0.5
		}
		clear(buf)
		for b := range tr.blocks() {
			tr.bin(b, got, buf)
		}
		for i, slot := range tr.slots {
			if w := buf[2*tr.pos[i]]; w != float64(slot)+0.5 {
				t.Fatalf("shift %d: slot %d gets %v back", shift, slot, w)
			}
		}
	}
}

// TestTransferBlocks solves with one block and with many: the iterates
// agree bit for bit.
func TestTransferBlocks(t *testing.T) {
	docs := randomDocs(rand.New(rand.NewPCG(9, 10)), 40, 60, 5)
	var ws [][]float64
	for _, shift := range []int{minShift, 2} {
		p, err := newProblem(context.Background(), docs, 4)
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
