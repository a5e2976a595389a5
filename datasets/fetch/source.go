// Package fetch declares where the files of the data directory come from
// and downloads them: each dataset plugin registers a Source per download
// (its URLs, checksum, licence and citation, and how the download becomes
// the files its loader reads), and a Client fetches a Source into a data
// directory — resuming a partial download with an HTTP Range request,
// retrying transient failures, and placing a file only once its checksum
// is verified. Verify checks files already present.
//
// The catalogue is keyed by the file's path in the data directory, so a
// generic loader (csv) reading a declared file (the Delve prototask) finds
// its source too.
package fetch

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
)

// Unpack says how a download becomes the files of a Source.
type Unpack int

const (
	// Keep stores the download as the Source's one file.
	Keep Unpack = iota
	// Gunzip stores the decompressed download as the Source's one file.
	Gunzip
	// Untar extracts the files' Members from a tar archive, gzip-compressed
	// or not.
	Untar
)

// String returns the step as list prints it.
func (u Unpack) String() string {
	switch u {
	case Keep:
		return "keep as is"
	case Gunzip:
		return "gunzip"
	case Untar:
		return "untar"
	}
	return fmt.Sprintf("Unpack(%d)", int(u))
}

// Source is one download and the files of the data directory it becomes.
type Source struct {
	// Name names the download (its file name, e.g. "cora.tgz"); it names
	// the partial download too.
	Name string
	// URLs are where the download is, tried in order. None: the files are
	// derived (Note says how) and cannot be fetched.
	URLs []string
	// SHA256 is the hex SHA-256 of the download, "" if not known: the
	// files it yields are checked then, each against its own.
	SHA256 string
	// Size is the download's size in bytes, 0 if not known.
	Size int64
	// MaxSize bounds the download where Size is not known (an archive
	// whose checksum is not published); 0: the files' sizes bound it
	// (Limit).
	MaxSize int64
	// Unpack is how the download becomes Files.
	Unpack Unpack
	// Files are the files the download becomes, in the data directory.
	Files []File
	// License and Citation are shown by `repro data list`.
	License, Citation string
	// Note says where the checksums come from and how files that are not
	// the original's bytes were derived.
	Note string
}

// File is a file of the data directory that a Source yields.
type File struct {
	// Path is the file's slash-separated path in the data directory.
	Path string
	// Member is the archive member that becomes Path (Untar only).
	Member string
	// Gzip stores the content gzip-compressed; SHA256 and Size are then
	// of the decompressed content, so any gzip of it verifies.
	Gzip bool
	// SHA256 and Size are the hex SHA-256 and the length of the file's
	// content (see Gzip).
	SHA256 string
	Size   int64
	// Known are other copies verify accepts, each with a note saying
	// what it is (a re-packed archive of the same documents).
	Known []Copy
}

// Copy is a known copy of a File that is not byte-identical to what
// fetch places, such as a re-packed archive.
type Copy struct {
	SHA256 string
	Size   int64
	Note   string
}

var (
	mu      sync.RWMutex
	catalog = map[string]*Source{} // by File.Path
)

// Register declares sources. It panics on a source with no file, a file
// without a checksum, a path that is not clean and relative, or a path
// already declared: a programmer error in a plugin's init.
func Register(srcs ...*Source) {
	mu.Lock()
	defer mu.Unlock()
	for _, s := range srcs {
		if err := s.check(); err != nil {
			panic("fetch: Register: " + err.Error())
		}
		for _, f := range s.Files {
			if _, dup := catalog[f.Path]; dup {
				panic("fetch: Register: " + f.Path + " declared twice")
			}
		}
		for _, f := range s.Files {
			catalog[f.Path] = s
		}
	}
}

// check reports what makes s unusable.
func (s *Source) check() error {
	if s == nil || s.Name == "" || len(s.Files) == 0 {
		return fmt.Errorf("source %+v: want a name and files", s)
	}
	if s.Name != path.Base(s.Name) || s.Name == "." || s.Name == ".." || strings.ContainsRune(s.Name, '\\') {
		return fmt.Errorf("source %s: the name is a file name, not a path", s.Name)
	}
	if s.Unpack != Untar && len(s.Files) != 1 {
		return fmt.Errorf("source %s: %d files; only untar yields more than one", s.Name, len(s.Files))
	}
	if !validHex(s.SHA256, true) {
		return fmt.Errorf("source %s: sha256 %q is not 64 hex digits", s.Name, s.SHA256)
	}
	if len(s.URLs) > 0 && s.Limit() <= 0 {
		return fmt.Errorf("source %s: no size, max size or file sizes: the download cannot be bounded", s.Name)
	}
	for _, f := range s.Files {
		if s.Unpack != Keep && f.Size <= 0 {
			return fmt.Errorf("source %s: %s: no size; a file unpacked from a download needs one, its bound", s.Name, f.Path)
		}
		if !validPath(f.Path) {
			return fmt.Errorf("source %s: path %q: want a clean relative slash-separated path", s.Name, f.Path)
		}
		if !validHex(f.SHA256, false) {
			return fmt.Errorf("source %s: %s: sha256 %q is not 64 hex digits", s.Name, f.Path, f.SHA256)
		}
		if (s.Unpack == Untar) != (f.Member != "") {
			return fmt.Errorf("source %s: %s: a member names the archive entry of untar, and only of untar", s.Name, f.Path)
		}
		for _, c := range f.Known {
			if !validHex(c.SHA256, false) {
				return fmt.Errorf("source %s: %s: known copy's sha256 %q is not 64 hex digits", s.Name, f.Path, c.SHA256)
			}
		}
	}
	return nil
}

// Limit returns the most bytes a download of s may be: Size if known,
// else MaxSize, else the sum of its files' sizes and a margin (a
// compressed archive of them is smaller; the margin leaves room for
// members not declared, such as a README), or 0 if nothing bounds it.
func (s *Source) Limit() int64 {
	switch {
	case s.Size > 0:
		return s.Size
	case s.MaxSize > 0:
		return s.MaxSize
	}
	var sum int64
	for _, f := range s.Files {
		if f.Size <= 0 {
			return 0
		}
		sum += f.Size
	}
	return sum + sum/8 + limitMargin
}

// limitMargin is the bytes a download without a declared size may exceed
// its files' sizes by.
const limitMargin = 1 << 20

func validHex(s string, empty bool) bool {
	if s == "" {
		return empty
	}
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func validPath(p string) bool {
	return p != "" && p == path.Clean(p) && !path.IsAbs(p) && p != "." && p != ".." &&
		!strings.HasPrefix(p, "../") && !strings.ContainsRune(p, '\\') && !strings.HasPrefix(p, ".partial/")
}

// Lookup returns the source declaring the data file p (a slash- or
// OS-separated path relative to the data directory) and the file, or nil.
func Lookup(p string) (*Source, *File) {
	p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
	mu.RLock()
	defer mu.RUnlock()
	s := catalog[p]
	if s == nil {
		return nil, nil
	}
	for i := range s.Files {
		if s.Files[i].Path == p {
			return s, &s.Files[i]
		}
	}
	return nil, nil
}

// Paths returns every declared file path, sorted.
func Paths() []string {
	mu.RLock()
	defer mu.RUnlock()
	var ps []string
	for p := range catalog {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}
