package text

import (
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/repro-ml/repro/datasets"
)

// Bytes a loader holds at most per byte of its input: the documents, the
// tokens the vectorizer counts, its vocabulary and the matrix it builds.
// Measured on the paper's files, documents kept (TestLoaderMemoryReal):
// 20news-bydate.tar.gz, a 50.3 MB tar, 146 MB live at the most (2.9 per
// byte); imdb/aclImdb_labeled.tar.gz, a 105.8 MB tar, 458 MB (4.3).
const (
	perInputByte = 8
	// perFileByte is for a directory of documents, without the tar
	// headers (512 bytes and the padding of each file): 20 Newsgroups'
	// 18,846 files hold 35.8 MB of text.
	perFileByte = 2 * perInputByte
	// perGzipByte is for a .tar.gz whose size uncompressed it does not
	// record (gzip keeps it modulo 4 GiB): text compresses 3 to 4 times.
	perGzipByte = 4 * perInputByte
	fixedMemory = 1 << 20
)

// archiveMemory returns the most a loader holds reading file (a .tar.gz,
// or a directory of text files) in env's data directory, by its size
// uncompressed; 0 when it cannot be read (Load then says why).
func archiveMemory(env datasets.Env, file string) int64 {
	p, err := env.Path(file, "")
	if err != nil {
		return 0
	}
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	if !st.IsDir() {
		if n := gzipSize(p, st.Size()); n > 0 {
			return fixedMemory + perInputByte*n
		}
		return fixedMemory + perGzipByte*st.Size()
	}
	size := int64(0)
	filepath.WalkDir(p, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	return fixedMemory + perFileByte*size
}

// gzipSize returns the size uncompressed of the gzip file p of size bytes
// as its trailer records it (ISIZE, modulo 2³²), or 0 when p is not a
// gzip file or the recorded size cannot be it (smaller than the file:
// more than 4 GiB uncompressed, or several members).
func gzipSize(p string, size int64) int64 {
	if size < 18 {
		return 0
	}
	f, err := os.Open(p)
	if err != nil {
		return 0
	}
	defer f.Close()
	var head [2]byte
	var tail [4]byte
	if _, err := f.ReadAt(head[:], 0); err != nil || head != [2]byte{0x1f, 0x8b} {
		return 0
	}
	if _, err := f.ReadAt(tail[:], size-4); err != nil {
		return 0
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:])); n >= size {
		return n
	}
	return 0
}
