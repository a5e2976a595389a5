// Package compress learns compressive features of text: the k-grams that
// a dictionary-based lossless compression of the whole corpus uses
// (Paskov, West, Mitchell and Hastie, "Compressive feature learning",
// NIPS 2013). It provides the transform plugins "compress" (the paper's
// method), "kgrams" (every k-gram, its all-pointers baseline) and "lz77"
// (the phrases LZ77 emits over the concatenated corpus, in a declared
// document order).
//
// Compression problem (1): a candidate pointer places a k-gram s of up to
// k words at a position of a document (never across documents); a binary
// w selects pointers that together cover every word (Xw ≥ 1), at cost λ
// per pointer plus c(s) = the word length of every string used. Compress
// solves a sequence of relaxations (2), 0 ≤ w ≤ 1 with the reweighting
// D⁽ⁱ⁺¹⁾ = max{1, (w⁽ⁱ⁾ + ε)⁻¹} of Candès et al., each by ADMM as the paper
// describes — a closed-form w-step per string (eq. 5), a z-step through its
// dual whose matrix H = XXᵀ is (k−1)-banded and block-diagonal by document,
// solved by banded Cholesky and an active-set Newton loop, documents in
// parallel — and rounds the last to a binary solution that reconstructs
// every word. The features of a document count the pointers that use each
// string. The w-step of strings with several pointers runs on a
// string-ordered copy of their variables, a block at a time, moved through
// a binned transfer (transfer.go) whose buffer holds them, so that every
// pass over the corpus streams and the time per iteration grows linearly
// with the corpus.
package compress
