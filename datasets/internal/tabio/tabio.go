// Package tabio holds the file helpers shared by repro's tabular dataset
// loaders: transparent gzip, and errors that name the file and line.
package tabio

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
)

// LineError is a malformed-input error located at a line of a file.
type LineError struct {
	File string // the file name as given to the reader
	Line int    // 1-based line number; 0 when the error concerns the whole file
	Msg  string // what was found and what was expected
}

func (e *LineError) Error() string {
	if e.Line <= 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Errorf returns a *LineError for file and line.
func Errorf(file string, line int, format string, args ...any) error {
	return &LineError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Open opens path for reading, decompressing it when its name ends in .gz.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, nil
	}
	z, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: reading gzip header: %w", path, err)
	}
	return &gzFile{z: z, f: f}, nil
}

type gzFile struct {
	z *gzip.Reader
	f *os.File
}

func (g *gzFile) Read(p []byte) (int, error) { return g.z.Read(p) }

func (g *gzFile) Close() error {
	err := g.z.Close()
	if e := g.f.Close(); err == nil {
		err = e
	}
	return err
}

// Lines calls fn for every line of r with its 1-based number, without the
// line terminator (\n or \r\n). It stops at the first error fn returns.
func Lines(r io.Reader, file string, fn func(line int, text string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(n, strings.TrimSuffix(sc.Text(), "\r")); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: after line %d: %w", file, n, err)
	}
	return nil
}
