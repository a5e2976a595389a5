package command

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// numberBytes is the most bytes a number of a program's output may take
// with its separator: a float64's shortest form is at most 24 characters
// (-1.2345678901234567e-100), "%.17g" a few more.
const numberBytes = 32

// predictionBound returns the most bytes the predictions of n rows of k
// classes (0: regression) may take: a header line and, per row, a label
// and k scores of numberBytes each, plus a little for line ends and
// white space.
func predictionBound(n, k int) int64 {
	return int64(n+2)*int64(k+1)*numberBytes + 4096
}

// modelBound returns the largest model file a fit may leave: a quarter
// of memory_mb when given (which covers both the program and the model
// repro keeps for predict), else 32 bytes per stored entry of the
// training set and per row and task (a kernel model keeps its support
// vectors and their coefficients as text), 32 bytes per weight (a
// column's per task, as liblinear's "%.17g"), plus 64 KB.
func modelBound(memoryMB float64, nnz, rows, cols, tasks int) int64 {
	if memoryMB > 0 {
		return int64(memoryMB * 1e6 / 4)
	}
	return (int64(nnz)+int64(rows)*int64(tasks))*numberBytes + (int64(cols)+1)*int64(tasks)*numberBytes + 64<<10
}

// readRegular reads the file at path, which a program wrote: it must be
// a regular file (not a symbolic link, a device or a FIFO) of at most
// limit bytes. what names the file in errors ("model file {model}").
func readRegular(path, what string, limit int64, hint string) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s %s is a symbolic link; want a regular file the program wrote", what, path)
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s is a %s, not a regular file; want a regular file the program wrote", what, path, modeName(st.Mode()))
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s %s has %d bytes, more than its bound of %d; %s", what, path, st.Size(), limit, hint)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit { // it grew while read
		return nil, fmt.Errorf("%s %s has more than its bound of %d bytes; %s", what, path, limit, hint)
	}
	return b, nil
}

// The hints of the errors of a file over its bound.
const (
	modelHint       = "want a smaller file, or memory_mb set to the program's peak memory (a quarter of which bounds its model file)"
	predictionsHint = "want one line per row, a label and at most one score per class (32 bytes a number)"
)

// modeName names the kind of a file that is not regular.
func modeName(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeCharDevice != 0:
		return "character device"
	case m&os.ModeDevice != 0:
		return "device"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// capped is an io.Writer keeping the first max bytes written to it: a
// program's standard output read as its predictions.
type capped struct {
	max   int64
	buf   []byte
	total int64
}

// Write keeps what fits under max; past it, it fails, which closes the
// pipe: a program writing on stops at a broken pipe instead of running
// to its timeout.
func (c *capped) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	room := c.max - int64(len(c.buf))
	if int64(len(p)) > room {
		c.buf = append(c.buf, p[:max(room, 0)]...)
		return int(max(room, 0)), errOverBound
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

// errOverBound is capped's error past its bound.
var errOverBound = errors.New("output over its bound")

// over returns an error when more than max bytes were written.
func (c *capped) over(what string) error {
	if c.total <= c.max {
		return nil
	}
	return fmt.Errorf("%s: more than %d bytes, its bound; %s", what, c.max, predictionsHint)
}
