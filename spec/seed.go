package spec

import (
	"crypto/sha256"
	"encoding/binary"
)

// Derive returns a seed derived from seed and a trial's identity parts by
// hashing, so that it does not depend on the order trials run in.
//
// The runner uses it for three named sub-seeds:
//
//	Derive(seed, "sample", dataset, trial)           — split and training order
//	Derive(sample, "cv")                             — cross-validation folds
//	Derive(seed, "method", dataset, method, size, trial) — the method's randomness,
//	                                                     where method is the label and, for a fixed-rule
//	                                                     grid point, all its param values (for a variant
//	                                                     of a rule with select.over, its values of the
//	                                                     other varying params)
//
// In the sample seed (and the split seed, Derive(seed, "split", dataset))
// dataset is the entry's samples_of if set, else its id, so an entry that
// takes another's samples draws the same rows; in the method seed it is
// always the id.
//
// The holdout test set and the training order derive from the sample seed
// (Derive(sample, "holdout"), Derive(sample, "train")), so a holdout split
// is drawn afresh for every trial index, the same for every method and size.
//
// The sample seed does not involve the method, so every method sees the
// same training sets and folds (paired comparisons), and does not involve
// the size, so samples are nested across sizes.
func Derive(seed uint64, parts ...string) uint64 {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	for _, p := range parts {
		// Length-prefix each part so ("ab","c") and ("a","bc") differ.
		binary.LittleEndian.PutUint64(b[:], uint64(len(p)))
		h.Write(b[:])
		h.Write([]byte(p))
	}
	sum := h.Sum(nil)
	return binary.LittleEndian.Uint64(sum[:8])
}
