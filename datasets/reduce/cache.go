package reduce

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/matrix"
)

// cacheFormat is the version of the files FitPCACached writes; a change
// of FitPCA's results or of the file layout must change it. Format 1 was
// a gob (.gob); format 2 is raw little-endian float64 values with a
// checksum (.pca), read 20 times faster.
const cacheFormat = 2

// FitPCACached is FitPCA with a cache on disk: the analysis of the same
// rows (by content) with the same options is read from
// env.CacheDir/pca/<key>.pca when an earlier fit wrote it — the folds'
// pools of Bilgic's experiments are the same in every experiment and for
// every query strategy, and a pool's eigendecomposition takes minutes.
// The file holds the fit's float64 values exactly, so a cached analysis
// projects exactly as a new one. A missing file is fitted and written; a
// damaged one (a wrong size, header or checksum) is never used: it is
// reported to env.Warn, fitted anew and rewritten. A file that cannot be
// written only costs the next run the fit. An empty env.CacheDir disables
// the cache.
func FitPCACached(ctx context.Context, env datasets.Env, X matrix.Matrix, o Options) (*PCA, error) {
	if env.CacheDir == "" {
		return FitPCA(ctx, X, o)
	}
	path := filepath.Join(env.CacheDir, "pca", pcaKey(X, o)+".pca")
	p, err := readPCA(path)
	if err == nil {
		return p, nil
	}
	if !errors.Is(err, fs.ErrNotExist) && env.Warn != nil {
		env.Warn(fmt.Errorf("%w; fitting the analysis anew and rewriting the file", err))
	}
	if p, err = FitPCA(ctx, X, o); err != nil {
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

// A cache file is pcaMagic, then the format, d (columns) and m
// (components) as uint64, then Mean (d), Scale (d), Variances (m) and the
// d×m Components row by row as float64 bits, all little-endian, then the
// CRC-32C (Castagnoli) of everything before it as a uint32.
const pcaMagic = "reproPCA"

// pcaHeader is the length of the magic and the three counts.
const pcaHeader = len(pcaMagic) + 3*8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func writePCA(path string, p *PCA) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	d, m := p.Components.Dims()
	buf := make([]byte, 0, pcaHeader+8*(2*d+m+d*m)+4)
	buf = append(buf, pcaMagic...)
	for _, v := range []int{cacheFormat, d, m} {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
	}
	for _, vs := range [][]float64{p.Mean, p.Scale, p.Variances} {
		buf = appendFloats(buf, vs)
	}
	for j := 0; j < d; j++ {
		buf = appendFloats(buf, p.Components.RawRowView(j))
	}
	buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli))
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pca-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf); err != nil {
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

func appendFloats(buf []byte, vs []float64) []byte {
	for _, v := range vs {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	}
	return buf
}

// readPCA reads a cache file. A missing file's error wraps
// fs.ErrNotExist; any other error names the file and what is wrong.
func readPCA(path string) (*PCA, error) {
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	damaged := func(what string) error { return fmt.Errorf("pca cache file %s is damaged: %s", path, what) }
	if len(buf) < pcaHeader+4 || string(buf[:len(pcaMagic)]) != pcaMagic {
		return nil, damaged("not a cache file of this format")
	}
	body := buf[:len(buf)-4]
	if sum := binary.LittleEndian.Uint32(buf[len(body):]); sum != crc32.Checksum(body, castagnoli) {
		return nil, damaged("checksum mismatch")
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(buf[len(pcaMagic)+8*i:]) }
	format, d, m := u(0), u(1), u(2)
	if format != cacheFormat {
		return nil, damaged(fmt.Sprintf("format %d, want %d", format, cacheFormat))
	}
	// The counts must fill the file exactly; they are checked by division,
	// not by a product that could overflow.
	n := uint64(len(body) - pcaHeader)
	if n%8 != 0 || d == 0 || m == 0 || m > d || d > n/8 || 2*d+m > n/8 || (n/8-2*d-m)%d != 0 || (n/8-2*d-m)/d != m {
		return nil, damaged(fmt.Sprintf("%d bytes do not hold %d columns and %d components", len(buf), d, m))
	}
	vals := make([]float64, 2*d+m+d*m)
	for i := range vals {
		vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(body[pcaHeader+8*i:]))
	}
	di, mi := int(d), int(m)
	return &PCA{Mean: vals[:di:di], Scale: vals[di : 2*di : 2*di], Variances: vals[2*di : 2*di+mi : 2*di+mi],
		Components: mat.NewDense(di, mi, vals[2*di+mi:])}, nil
}
