package fetch

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// State is what Verify found of a file.
type State int

const (
	// Missing: the file is not in the data directory.
	Missing State = iota
	// Verified: its content has the declared checksum (or a known copy's).
	Verified
	// Mismatch: it is there with another checksum, or cannot be read.
	Mismatch
)

// String returns the state as list and verify print it.
func (s State) String() string {
	switch s {
	case Missing:
		return "missing"
	case Verified:
		return "verified"
	case Mismatch:
		return "CHECKSUM MISMATCH"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is the result of Verify.
type Status struct {
	State State
	// Copy is the known copy the file matched, nil for the declared one.
	Copy *Copy
	// SHA256 and Size are what was read (Verified or Mismatch).
	SHA256 string
	Size   int64
	// Err says what is wrong (Mismatch).
	Err error
}

// Verify checks the file f of the data directory dir against its checksum.
func Verify(dir string, f *File) Status {
	p := filepath.Join(dir, filepath.FromSlash(f.Path))
	r, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Status{State: Missing}
	}
	if err != nil {
		return Status{State: Mismatch, Err: err}
	}
	defer r.Close()
	sum, n, err := digest(r, f.Gzip)
	if err != nil {
		return Status{State: Mismatch, Err: fmt.Errorf("%s: %w", p, err)}
	}
	st := Status{State: Verified, SHA256: sum, Size: n}
	if sum == f.SHA256 && (f.Size == 0 || n == f.Size) {
		return st
	}
	for i, c := range f.Known {
		if sum == c.SHA256 && (c.Size == 0 || n == c.Size) {
			st.Copy = &f.Known[i]
			return st
		}
	}
	st.State = Mismatch
	st.Err = mismatch(p, f.Gzip, sum, n, f.SHA256, f.Size)
	return st
}

func mismatch(p string, gz bool, sum string, n int64, want string, wantN int64) error {
	what := ""
	if gz {
		what = "decompressed "
	}
	if wantN > 0 && n != wantN {
		return fmt.Errorf("%s: %scontent is %d bytes with sha256 %s; want %d bytes with sha256 %s", p, what, n, sum, wantN, want)
	}
	return fmt.Errorf("%s: %scontent has sha256 %s; want %s", p, what, sum, want)
}

// digest returns the hex SHA-256 and length of r's content, decompressed
// if gz.
func digest(r io.Reader, gz bool) (string, int64, error) {
	if gz {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return "", 0, err
		}
		defer zr.Close()
		r = zr
	}
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
