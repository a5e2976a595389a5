package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// ResultsFile is the name of the results file in an output directory.
const ResultsFile = "results.jsonl"

// Store is the append-only results file of an output directory. Each
// result is written as one JSON line and synced to disk before Append
// returns, so a finished trial survives a crash or a kill.
type Store struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

// LineError reports a line of a results file that could not be read.
type LineError struct {
	File string
	Line int
	Err  error
	// Torn marks the last line of the file cut short by an interrupted
	// write; OpenStore drops it.
	Torn bool
}

func (e *LineError) Error() string {
	if e.Torn {
		return fmt.Sprintf("%s:%d: torn last line (an interrupted write), dropped: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: corrupt result line, ignored (its trial will run again): %v", e.File, e.Line, e.Err)
}

// Damaged splits the errors ReadResults returns into the lines every
// reader drops alike — a torn last line, what a kill leaves, whose trial
// then has no result — and the corrupt lines in the middle of a file,
// which a reader that must not compare less than it was given (diff)
// refuses.
func Damaged(warns []error) (torn, corrupt []error) {
	for _, w := range warns {
		var le *LineError
		if errors.As(w, &le) && le.Torn {
			torn = append(torn, w)
		} else {
			corrupt = append(corrupt, w)
		}
	}
	return torn, corrupt
}

// ReadResults reads the results file at path. It returns the results of
// every well-formed line in file order, and one *LineError for each line
// that is not: a corrupt line in the middle, or a torn last line. A
// missing file is no results and no error.
func ReadResults(path string) ([]Result, []error, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	results, warns, _ := parseResults(path, data)
	return results, warns, nil
}

// parseResults parses data and returns the offset just past the last
// complete, well-formed-or-not line (a torn tail is after it).
func parseResults(path string, data []byte) ([]Result, []error, int) {
	var out []Result
	var warns []error
	off, line := 0, 0
	for off < len(data) {
		line++
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			// No newline: the write of this line was cut short, or the
			// file was edited by hand and saved without a final newline.
			// A line is one write ending in '}' and '\n', so a tail that
			// is a whole well-formed result lost only its newline: keep it.
			b := bytes.TrimSpace(data[off:])
			if len(b) == 0 {
				return out, warns, len(data)
			}
			r, err := parseLine(b)
			if err == nil {
				return append(out, r), warns, len(data)
			}
			warns = append(warns, &LineError{File: path, Line: line, Err: err, Torn: true})
			return out, warns, off
		}
		b := bytes.TrimSpace(data[off : off+nl])
		off += nl + 1
		if len(b) == 0 {
			continue
		}
		r, err := parseLine(b)
		if err != nil {
			warns = append(warns, &LineError{File: path, Line: line, Err: err})
			continue
		}
		out = append(out, r)
	}
	return out, warns, off
}

// parseLine decodes one line: a single JSON object with known fields and
// a key, and nothing after it.
func parseLine(b []byte) (Result, error) {
	var r Result
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Result{}, err
	}
	if dec.More() {
		return Result{}, errors.New("more than one value on the line")
	}
	if r.Key == "" {
		return Result{}, errors.New("no key")
	}
	return r, nil
}

// OpenStore opens (creating if needed) the results file in dir, and returns
// the results already there. A torn last line is reported and truncated
// away so that later appends start on a fresh line; corrupt lines are
// reported and left in place.
func OpenStore(dir string) (*Store, []Result, []error, error) {
	return openStoreFile(filepath.Join(dir, ResultsFile))
}

// openStoreFile opens the results file at path as OpenStore does.
func openStoreFile(path string) (*Store, []Result, []error, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	results, warns, good := parseResults(path, data)
	if good < len(data) {
		if err := f.Truncate(int64(good)); err != nil {
			f.Close()
			return nil, nil, nil, fmt.Errorf("%s: dropping torn line: %w", path, err)
		}
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	if good > 0 && good == len(data) && data[good-1] != '\n' {
		// A last line kept without its newline: end it, so that the next
		// append starts a line of its own.
		if _, err := f.Write([]byte{'\n'}); err != nil {
			f.Close()
			return nil, nil, nil, fmt.Errorf("%s: ending the last line: %w", path, err)
		}
	}
	return &Store{path: path, f: f}, results, warns, nil
}

// Append writes r as one line and syncs the file.
func (s *Store) Append(r *Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("result %s: %w", r.Key, err)
	}
	b = append(b, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	w := bufio.NewWriter(s.f)
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("%s: %w", s.path, err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("%s: %w", s.path, err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("%s: sync: %w", s.path, err)
	}
	return nil
}

// Close closes the results file.
func (s *Store) Close() error { return s.f.Close() }

// Latest returns the last result of every key, in order of first
// appearance: a retried trial's newer line replaces the older one.
func Latest(results []Result) []Result {
	idx := make(map[string]int, len(results))
	out := make([]Result, 0, len(results))
	for _, r := range results {
		if i, ok := idx[r.Key]; ok {
			out[i] = r
			continue
		}
		idx[r.Key] = len(out)
		out = append(out, r)
	}
	return out
}
