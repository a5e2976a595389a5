package datasets

import (
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
)

// InputBytes returns the bytes a loader reads from files (named as its
// params name them, in env's data directory): a file's size, or for a
// gzip file its size uncompressed as its trailer records it (4 times the
// compressed size where the trailer cannot be it). Files that cannot be
// read count 0: Load says why. Loaders' Memory hooks scale it by what
// they hold per byte read.
func InputBytes(env Env, files ...string) int64 {
	total := int64(0)
	for _, f := range files {
		p, err := env.Path(f, "")
		if err != nil {
			continue
		}
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		n, gz := gzipSize(p, st.Size())
		switch {
		case n > 0:
			total += n
		case gz:
			total += 4 * st.Size()
		default:
			total += st.Size()
		}
	}
	return total
}

// gzipSize returns the size uncompressed of the file p of size bytes if
// it is a gzip file whose trailer (ISIZE, modulo 2³²) can be it, and
// whether p is a gzip file at all.
func gzipSize(p string, size int64) (int64, bool) {
	f, err := os.Open(p)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var head [2]byte
	if _, err := f.ReadAt(head[:], 0); err != nil || head != [2]byte{0x1f, 0x8b} {
		return 0, false
	}
	var tail [4]byte
	if size < 18 {
		return 0, true
	}
	if _, err := f.ReadAt(tail[:], size-4); err != nil {
		return 0, true
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:])); n >= size {
		return n, true
	}
	return 0, true
}

// InputHead returns the bytes a loader reads from file (InputBytes) and
// its first n bytes, decompressed if file is gzip-compressed, for a
// Memory hook to count what a byte of it holds (fields, entries, rows).
// (0, nil) where it cannot be read.
func InputHead(env Env, file string, n int) (int64, []byte) {
	total := InputBytes(env, file)
	if total <= 0 {
		return 0, nil
	}
	p, err := env.Path(file, "")
	if err != nil {
		return 0, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return 0, nil
	}
	defer f.Close()
	r := io.Reader(f)
	if _, gz := gzipSize(p, 0); gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return 0, nil
		}
		r = zr
	}
	head := make([]byte, min(int64(n), total))
	m, _ := io.ReadFull(r, head)
	return total, head[:m]
}
