// Package tabio holds the file helpers shared by repro's tabular dataset
// loaders: transparent gzip, and errors that name the file and line.
package tabio

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/repro-ml/repro/datasets"
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
		return nil, fmt.Errorf("%s: reading gzip header (the name ends in .gz; is it gzip, and whole?): %w", path, err)
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

// bom is the UTF-8 byte order mark some editors put at the start of a file.
var bom = []byte{0xEF, 0xBB, 0xBF}

// SkipBOM returns r without a leading UTF-8 byte order mark, so that the
// first field of a file saved by such an editor is not "\ufeffname".
func SkipBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(bom)); err == nil && bytes.Equal(b, bom) {
		br.Discard(len(bom))
	}
	return br
}

// MaxLine is the longest line Lines accepts, in bytes.
const MaxLine = 64 << 20

// Lines calls fn for every line of r with its 1-based number, without the
// line terminator (\n or \r\n) and without a leading byte order mark. It
// stops at the first error fn returns. A read error (a truncated gzip
// stream, a line longer than MaxLine) names the file and the line reached.
func Lines(r io.Reader, file string, fn func(line int, text string) error) error {
	sc := bufio.NewScanner(SkipBOM(r))
	sc.Buffer(make([]byte, 64*1024), MaxLine)
	// A line is handed to fn only once the next one is read, or the input
	// ends cleanly: the partial last line of a truncated gzip stream is
	// not parsed (it would give a misleading error about its fields).
	n := 0
	var pending string
	for sc.Scan() {
		if n > 0 {
			if err := fn(n, pending); err != nil {
				return err
			}
		}
		n++
		pending = strings.TrimSuffix(sc.Text(), "\r")
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) { // line n was whole; n+1 is too long
			return fmt.Errorf("%s:%d: line longer than %d MiB: %w", file, n+1, MaxLine>>20, err)
		}
		// Line n, pending, may be cut short by the error: say where the
		// last whole line was.
		return fmt.Errorf("%s: after line %d: %w", file, max(n-1, 0), err)
	}
	if n > 0 {
		return fn(n, pending)
	}
	return nil
}

// Scan is Lines for a parser that keeps nothing of a line's text: the
// string fn receives shares a buffer that the next line overwrites, so
// it is valid only during the call (copy what outlives it, as
// fmt.Errorf's %q does). Lines allocates a string per line, as much
// garbage as the file's size: the collector's headroom grew with it
// while a large file was parsed.
func Scan(r io.Reader, file string, fn func(line int, text string) error) error {
	sc := bufio.NewScanner(SkipBOM(r))
	sc.Buffer(make([]byte, 64*1024), MaxLine)
	// As in Lines, a line is handed to fn once the next one is read.
	n := 0
	var pending []byte
	call := func() error {
		b := bytes.TrimSuffix(pending, []byte{'\r'})
		if len(b) == 0 {
			return fn(n, "")
		}
		return fn(n, unsafe.String(&b[0], len(b)))
	}
	for sc.Scan() {
		if n > 0 {
			if err := call(); err != nil {
				return err
			}
		}
		n++
		pending = append(pending[:0], sc.Bytes()...)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line longer than %d MiB: %w", file, n+1, MaxLine>>20, err)
		}
		return fmt.Errorf("%s: after line %d: %w", file, max(n-1, 0), err)
	}
	if n > 0 {
		return call()
	}
	return nil
}

// CollectAfter is the size of a reader's transient data (parsed fields
// or entries, dropped once the dataset is built) from which Collect
// runs a collection.
const CollectAfter = 32 << 20

// Collect runs a garbage collection when a loader has just dropped
// transient data of about bytes bytes, at least CollectAfter. The
// collector lets the heap grow to twice what was live at its last cycle,
// and during a parse that is the parsed data: without a collection once
// it is dropped, the fit that follows grows the heap into that headroom
// instead of reusing the memory. On ISOLET's RBF svm from its LIBSVM files
// (77 MB of parsed entries) the peak RSS fell from 278 to 228 MB, at the
// same CPU.
func Collect(bytes int64) {
	if bytes >= CollectAfter {
		runtime.GC()
	}
}

// ParseFinite parses s as a finite decimal float64: an optional sign,
// digits with an optional decimal point, an optional exponent (1, -2.5,
// .5, 3e-7). Its error says what is wrong with s in words fit for a
// message about a data file: not a number, NaN or infinite, beyond the
// float64 range (such as 1e400), or one of the forms strconv.ParseFloat
// accepts that a data file does not mean: a hexadecimal float (0x1p3)
// or digits separated by underscores (1_000).
func ParseFinite(s string) (float64, error) {
	if hexOrUnderscore(s) {
		return parseOdd(s)
	}
	return parseFloat(s)
}

// hexOrUnderscore reports whether s holds an x, X or _: the bytes of the
// forms ParseFinite rejects before strconv.ParseFloat reads them. A byte
// loop: strings.ContainsAny built its byte set at every call, a fifth of
// the time of reading ISOLET's LIBSVM files.
func hexOrUnderscore(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == 'x' || c == 'X' || c == '_' {
			return true
		}
	}
	return false
}

// parseOdd is ParseFinite of s holding an x, X or _.
func parseOdd(s string) (float64, error) {
	if strings.ContainsAny(s, "xX") && strings.ContainsAny(s, "0123456789") {
		return 0, fmt.Errorf("%q is a hexadecimal number; a data file holds decimal numbers", s)
	}
	if strings.Contains(s, "_") {
		return 0, fmt.Errorf("%q is not a number (digits separated by _; write %s)", s, strings.ReplaceAll(s, "_", ""))
	}
	return parseFloat(s)
}

// parseFloat is strconv.ParseFloat with ParseFinite's errors.
func parseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0):
		return 0, fmt.Errorf("%q overflows float64 (|x| > 1.8e308)", s)
	case errors.Is(err, strconv.ErrRange):
		return f, nil // underflow to zero or a denormal: a fine value
	case err != nil:
		return 0, fmt.Errorf("%q is not a number", s)
	case math.IsNaN(f):
		return 0, fmt.Errorf("%q: NaN is not allowed (write missing values as ? or leave the field empty where the format allows)", s)
	case math.IsInf(f, 0):
		return 0, fmt.Errorf("%q: infinite values are not allowed", s)
	}
	return f, nil
}

// CheckLabel returns an error saying what is wrong with a class label
// read from a file: bytes that are not UTF-8, or a control character such
// as NUL (white space such as a tab is allowed). Such a label is a damaged file, never a class of its own.
func CheckLabel(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("label %q is not valid UTF-8 (a damaged or binary file?)", s)
	}
	for _, r := range s {
		if r == 0 {
			return fmt.Errorf("label %q contains a NUL byte (a damaged or binary file?)", s)
		}
		if unicode.IsControl(r) && !unicode.IsSpace(r) { // a quoted field may hold a line break
			return fmt.Errorf("label %q contains the control character %U", s, r)
		}
	}
	return nil
}

// CheckUTF8 returns an error saying that s, the what of a data file (a
// term, a paper id, a column name), is not valid UTF-8, or nil.
func CheckUTF8(what, s string) error {
	if utf8.ValidString(s) {
		return nil
	}
	return fmt.Errorf("%s %q is not valid UTF-8 (a damaged file, or one in another encoding: convert it to UTF-8)", what, s)
}

// Check returns d.Validate() and, beyond it, an error for a non-finite
// feature value, target or stored matrix entry: what a loader promises to
// every method.
func Check(d *datasets.Dataset) error {
	if err := d.Validate(); err != nil {
		return err
	}
	for i, y := range d.Y {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("dataset %q: row %d: target %v is not finite", d.Name, i, y)
		}
	}
	r, _ := d.X.Dims()
	var (
		bad error
		i   int
	)
	check := func(j int, v float64) { // one closure for all rows: no allocation per row
		if bad == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			bad = fmt.Errorf("dataset %q: row %d, column %d: value %v is not finite", d.Name, i, j, v)
		}
	}
	for i = 0; i < r; i++ {
		d.X.Row(i, check)
		if bad != nil {
			return bad
		}
	}
	return nil
}
