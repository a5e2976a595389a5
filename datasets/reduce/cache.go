package reduce

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/repro-ml/repro/matrix"
)

// cacheFormat is the version of the files FitPCACached writes; a change
// of FitPCA's results or of the file layout must change it.
const cacheFormat = 1

// FitPCACached is FitPCA with a cache on disk: the analysis of the same
// rows (by content) with the same options is read from dir/pca/<key>.gob
// when an earlier fit wrote it — the folds' pools of Bilgic's experiments
// are the same in every experiment and for every query strategy, and a
// pool's eigendecomposition takes minutes. The file holds the fit's
// float64 values exactly, so a cached analysis projects exactly as a new
// one. A missing, unreadable or damaged file is fitted anew and
// rewritten; a file that cannot be written only costs the next run the
// fit. An empty dir disables the cache.
func FitPCACached(ctx context.Context, dir string, X matrix.Matrix, o Options) (*PCA, error) {
	if dir == "" {
		return FitPCA(ctx, X, o)
	}
	path := filepath.Join(dir, "pca", pcaKey(X, o)+".gob")
	if p, err := readPCA(path); err == nil {
		return p, nil
	}
	p, err := FitPCA(ctx, X, o)
	if err != nil {
		return nil, err
	}
	_ = writePCA(path, p) // best effort: the fit is right either way
	return p, nil
}

// pcaKey hashes what determines a fit: the options and every stored
// element of X with its position.
func pcaKey(X matrix.Matrix, o Options) string {
	h := sha256.New()
	n, d := X.Dims()
	fmt.Fprintf(h, "pca %d %d %d %d %v %t\x00", cacheFormat, n, d, o.Components, o.Variance, o.Standardize)
	var b [8]byte
	put := func(h hash.Hash, v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	for i := 0; i < n; i++ {
		put(h, uint64(i))
		X.Row(i, func(j int, v float64) {
			if v != 0 { // dense and sparse storage of the same rows agree
				put(h, uint64(j))
				put(h, math.Float64bits(v))
			}
		})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// pcaFile is the stored form of a PCA.
type pcaFile struct {
	Format                 int
	Mean, Scale, Variances []float64
	Rows, Cols             int
	Components             []float64
}

func writePCA(path string, p *PCA) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	r, c := p.Components.Dims()
	f := pcaFile{Format: cacheFormat, Mean: p.Mean, Scale: p.Scale, Variances: p.Variances, Rows: r, Cols: c,
		Components: mat.DenseCopyOf(p.Components).RawMatrix().Data}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pca-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := gob.NewEncoder(tmp).Encode(&f); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil { // CreateTemp's 0600: the cache is shared
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func readPCA(path string) (*PCA, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var f pcaFile
	if err := gob.NewDecoder(fh).Decode(&f); err != nil {
		return nil, err
	}
	d := len(f.Mean)
	if f.Format != cacheFormat || len(f.Scale) != d || f.Rows != d || f.Cols != len(f.Variances) || f.Cols == 0 || len(f.Components) != f.Rows*f.Cols {
		return nil, errors.New("pca cache: damaged file")
	}
	return &PCA{Mean: f.Mean, Scale: f.Scale, Variances: f.Variances, Components: mat.NewDense(f.Rows, f.Cols, f.Components)}, nil
}
