package fetch

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// MirrorEnv is the environment variable whose URL replaces the scheme and
// host of every download URL (and prefixes its path with the mirror's),
// for clusters without internet access and for tests.
const MirrorEnv = "REPRO_DATA_MIRROR"

// PartialDir is the directory of the data directory that holds partial
// downloads, to be resumed by the next fetch.
const PartialDir = ".partial"

// Progress receives the progress of a download.
type Progress interface {
	// Start begins the download of name: size bytes (-1 if unknown),
	// done of them already on disk from an earlier attempt.
	Start(name string, size, done int64)
	// Add reports n more bytes received.
	Add(n int64)
	// Finish ends the download of Start, err nil on success.
	Finish(err error)
}

// Client downloads sources. Its zero value uses http.DefaultClient, no
// mirror, 5 attempts and a backoff of 1 s doubling per retry.
type Client struct {
	// HTTP is the client used (nil: http.DefaultClient).
	HTTP *http.Client
	// Mirror, if set, replaces the scheme and host of every URL: with
	// Mirror "http://127.0.0.1:8080/data", https://host/a/b.tar.gz is
	// fetched from http://127.0.0.1:8080/data/a/b.tar.gz.
	Mirror string
	// Attempts is how often a transient failure (HTTP 5xx, 408, 429, a
	// reset or cut connection) is tried in all; 0 means 5.
	Attempts int
	// Backoff is the wait before the first retry, doubled after each;
	// 0 means 1 s.
	Backoff time.Duration
	// Idle is how long a download may receive nothing before the
	// attempt is given up as failed (transient: the next resumes); 0
	// means 1 minute.
	Idle time.Duration
	// Progress, if set, receives the progress of each download.
	Progress Progress
}

// HTTPError is an HTTP response that is not the file.
type HTTPError struct {
	URL    string
	Status string
	Code   int
}

func (e *HTTPError) Error() string { return fmt.Sprintf("GET %s: %s", e.URL, e.Status) }

// ChecksumError is a download or a file whose content is not the declared
// one; nothing of it is kept.
type ChecksumError struct {
	What      string // the download's name or the file's path
	Got, Want string
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%s: sha256 %s, want %s (not kept)", e.What, e.Got, e.Want)
}

// MirrorURL returns u with its scheme and host replaced by mirror's, and
// mirror's path put before its own; u itself if mirror is "".
func MirrorURL(u, mirror string) (string, error) {
	if mirror == "" {
		return u, nil
	}
	m, err := url.Parse(mirror)
	if err != nil || m.Scheme == "" || m.Host == "" {
		return "", fmt.Errorf("mirror %q: want a URL such as http://host:port/path", mirror)
	}
	o, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	o.Scheme, o.Host, o.User = m.Scheme, m.Host, m.User
	o.Path = strings.TrimSuffix(m.Path, "/") + o.Path
	o.RawPath = ""
	return o.String(), nil
}

// PartialPath is where the partial download of src is kept in dir.
func PartialPath(dir string, src *Source) string {
	key := src.SHA256
	if key == "" {
		h := sha256.Sum256([]byte(strings.Join(src.URLs, "\n")))
		key = hex.EncodeToString(h[:])
	}
	return filepath.Join(dir, PartialDir, src.Name+"."+key[:12]+".part")
}

// Fetch downloads src into the data directory dir and places its files,
// each verified against its checksum before it replaces anything. A
// download cut short (a cancelled ctx, a failure after every attempt)
// stays in PartialPath for the next Fetch to resume; a download or file
// with another checksum is removed.
func (c *Client) Fetch(ctx context.Context, dir string, src *Source) error {
	if len(src.URLs) == 0 {
		return fmt.Errorf("%s: no download declared (%s)", src.Name, src.Note)
	}
	part := PartialPath(dir, src)
	if err := os.MkdirAll(filepath.Dir(part), 0o755); err != nil {
		return err
	}
	var err error
	for _, u := range src.URLs {
		if err = c.download(ctx, u, part, src); err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		if fi, serr := os.Stat(part); serr == nil && fi.Size() == 0 {
			discard(part)
		}
		return fmt.Errorf("%s: %w", src.Name, err)
	}
	if err := checkDownload(part, src); err != nil {
		discard(part)
		return err
	}
	if err := place(ctx, dir, part, src); err != nil {
		var ce *ChecksumError
		if errors.As(err, &ce) {
			discard(part)
		}
		return err
	}
	discard(part)
	return nil
}

// discard removes the partial download part, and its directory if empty.
func discard(part string) {
	os.Remove(part)
	os.Remove(filepath.Dir(part)) // fails unless empty
}

// checkDownload verifies the complete download at part against src.
func checkDownload(part string, src *Source) error {
	if src.SHA256 == "" && src.Size == 0 {
		return nil
	}
	f, err := os.Open(part)
	if err != nil {
		return err
	}
	defer f.Close()
	sum, n, err := digest(f, false)
	if err != nil {
		return err
	}
	if src.Size > 0 && n != src.Size {
		return &ChecksumError{What: src.Name, Got: fmt.Sprintf("%s (%d bytes, want %d)", sum, n, src.Size), Want: src.SHA256}
	}
	if src.SHA256 != "" && sum != src.SHA256 {
		return &ChecksumError{What: src.Name, Got: sum, Want: src.SHA256}
	}
	return nil
}

// download completes part from u, retrying transient failures with
// backoff; each attempt resumes where the last stopped.
func (c *Client) download(ctx context.Context, u, part string, src *Source) error {
	mu, err := MirrorURL(u, c.mirror())
	if err != nil {
		return err
	}
	attempts, wait := c.Attempts, c.Backoff
	if attempts <= 0 {
		attempts = 5
	}
	if wait <= 0 {
		wait = time.Second
	}
	for a := 1; ; a++ {
		err = c.get(ctx, mu, part, src)
		if err == nil || ctx.Err() != nil || !transient(err) || a == attempts {
			if err != nil && a > 1 {
				err = fmt.Errorf("%w (after %d attempts)", err, a)
			}
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait *= 2
	}
}

func (c *Client) mirror() string {
	if c.Mirror != "" {
		return c.Mirror
	}
	return os.Getenv(MirrorEnv)
}

// errRestart is a partial download the server cannot continue: it was
// discarded, and the next attempt starts over.
var errRestart = errors.New("the partial download was discarded; starting over")

// errIdle is a server that sent nothing for Client.Idle.
var errIdle = errors.New("nothing received")

// idleReader restarts timer, which fails the attempt, at each read.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	idle  time.Duration
}

func (r idleReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if n > 0 {
		r.timer.Reset(r.idle)
	}
	return n, err
}

// transient reports a failure worth another attempt.
func transient(err error) bool {
	if errors.Is(err, errRestart) || errors.Is(err, errIdle) {
		return true
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Code >= 500 || he.Code == http.StatusRequestTimeout || he.Code == http.StatusTooManyRequests
	}
	var ne net.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &ne) && ne.Timeout()
}

// get appends the rest of u to part: a Range request from part's size,
// or the whole file again if the server ignores it.
func (c *Client) get(ctx context.Context, u, part string, src *Source) (err error) {
	size := src.Size
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if size > 0 && have == size {
		return nil // complete: checked next
	}
	if size > 0 && have > size {
		if err := f.Truncate(0); err != nil {
			return err
		}
		have = 0
	}
	// A server that stops sending fails the attempt after Idle.
	idle := c.Idle
	if idle <= 0 {
		idle = time.Minute
	}
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(idle, func() { cancel(errIdle) })
	defer timer.Stop()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() == nil && context.Cause(actx) == errIdle {
			return fmt.Errorf("GET %s: %w after %v", u, errIdle, idle)
		}
		return err
	}
	defer resp.Body.Close()
	total := int64(-1)
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		start, t, ok := contentRange(resp.Header.Get("Content-Range"))
		if !ok || start != have {
			return fmt.Errorf("GET %s: Content-Range %q does not continue the %d bytes already here", u, resp.Header.Get("Content-Range"), have)
		}
		total = t
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		// The partial file is not a prefix of this one: start over.
		if err := f.Truncate(0); err != nil {
			return err
		}
		return fmt.Errorf("GET %s: %s: %w", u, resp.Status, errRestart)
	case resp.StatusCode == http.StatusOK:
		if have > 0 { // the server ignored Range
			if err := f.Truncate(0); err != nil {
				return err
			}
			have = 0
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		total = resp.ContentLength
	default:
		return &HTTPError{URL: u, Status: resp.Status, Code: resp.StatusCode}
	}
	if total < 0 && size > 0 {
		total = size
	}
	if c.Progress != nil {
		c.Progress.Start(src.Name, total, have)
	}
	w := io.Writer(f)
	if c.Progress != nil {
		w = progressWriter{f, c.Progress}
	}
	_, err = io.Copy(w, idleReader{resp.Body, timer, idle})
	if err != nil && ctx.Err() == nil && context.Cause(actx) == errIdle {
		err = fmt.Errorf("%w after %v", errIdle, idle)
	}
	if err == nil {
		err = f.Sync()
	}
	if c.Progress != nil {
		c.Progress.Finish(err)
	}
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

// contentRange parses "bytes START-END/TOTAL" (TOTAL may be *, -1).
func contentRange(s string) (start, total int64, ok bool) {
	s, ok = strings.CutPrefix(s, "bytes ")
	if !ok {
		return 0, 0, false
	}
	rng, tot, ok := strings.Cut(s, "/")
	a, _, ok2 := strings.Cut(rng, "-")
	if !ok || !ok2 {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	total = -1
	if tot != "*" {
		if total, err = strconv.ParseInt(tot, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return start, total, true
}

type progressWriter struct {
	w io.Writer
	p Progress
}

func (pw progressWriter) Write(b []byte) (int, error) {
	n, err := pw.w.Write(b)
	pw.p.Add(int64(n))
	return n, err
}

// place makes src's files from the download at part: each is written to a
// temporary file beside its target, checked, and only when all are checked
// renamed into place. On any failure no temporary is left.
func place(ctx context.Context, dir, part string, src *Source) (err error) {
	type pending struct {
		tmp, dst string
	}
	var done []pending
	defer func() {
		if err != nil {
			for _, p := range done {
				os.Remove(p.tmp)
			}
		}
	}()
	write := func(f *File, r io.Reader) error {
		dst := filepath.Join(dir, filepath.FromSlash(f.Path))
		tmp, err := writeChecked(ctx, dst, f, r)
		if err != nil {
			return err
		}
		done = append(done, pending{tmp, dst})
		return nil
	}
	in, err := os.Open(part)
	if err != nil {
		return err
	}
	defer in.Close()
	switch src.Unpack {
	case Keep:
		err = write(&src.Files[0], in)
	case Gunzip:
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bufio.NewReader(in)); err != nil {
			return fmt.Errorf("%s: %w", src.Name, err)
		}
		err = write(&src.Files[0], zr)
	case Untar:
		err = untar(src, in, write)
	default:
		err = fmt.Errorf("%s: unknown unpack step %v", src.Name, src.Unpack)
	}
	if err != nil {
		return err
	}
	for _, p := range done {
		if err = os.Rename(p.tmp, p.dst); err != nil {
			return err
		}
		syncDir(filepath.Dir(p.dst))
	}
	return nil
}

// untar extracts src's members from the tar (maybe gzip) archive in.
func untar(src *Source, in io.Reader, write func(*File, io.Reader) error) error {
	br := bufio.NewReader(in)
	r := io.Reader(br)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%s: %w", src.Name, err)
		}
		r = zr
	}
	want := map[string]*File{}
	for i := range src.Files {
		want[strings.TrimPrefix(src.Files[i].Member, "./")] = &src.Files[i]
	}
	tr := tar.NewReader(r)
	for len(want) > 0 {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", src.Name, err)
		}
		name := strings.TrimPrefix(h.Name, "./")
		f := want[name]
		if f == nil || h.Typeflag != tar.TypeReg {
			continue
		}
		delete(want, name)
		if err := write(f, tr); err != nil {
			return err
		}
	}
	for name := range want {
		return fmt.Errorf("%s: the archive has no member %s", src.Name, name)
	}
	return nil
}

// writeChecked writes r's content to a temporary file beside dst (gzip
// compressed if f.Gzip), checks it against f, and returns the temporary's
// name; on failure nothing is left.
func writeChecked(ctx context.Context, dst string, f *File, r io.Reader) (tmpName string, err error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	var zw *gzip.Writer
	var w io.Writer = tmp
	if f.Gzip {
		zw = gzip.NewWriter(tmp)
		w = zw
	}
	n, err := io.Copy(io.MultiWriter(w, h), ctxReader{ctx, r})
	if err != nil {
		return "", fmt.Errorf("%s: %w", dst, err)
	}
	if zw != nil {
		if err = zw.Close(); err != nil {
			return "", err
		}
	}
	if sum := hexSum(h); sum != f.SHA256 || f.Size > 0 && n != f.Size {
		return "", &ChecksumError{What: f.Path, Got: fmt.Sprintf("%s (%d bytes)", sum, n), Want: fmt.Sprintf("%s (%d bytes)", f.SHA256, f.Size)}
	}
	if err = tmp.Chmod(0o644); err != nil {
		return "", err
	}
	if err = tmp.Sync(); err != nil {
		return "", err
	}
	if err = tmp.Close(); err != nil {
		return "", err
	}
	return tmp.Name(), nil
}

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Leftovers returns the partial downloads and temporary files in dir, for
// tests and for `repro data verify` to mention.
func Leftovers(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".part") || strings.Contains(d.Name(), ".tmp-")) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}
