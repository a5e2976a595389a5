package fetch

import (
	"archive/tar"
	"bufio"
	"bytes"
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
	"sync/atomic"
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
	// MinRate is the fewest bytes a second a download must average over
	// each RateWindow, or the attempt fails (transient: the next resumes);
	// 0 means 1 KiB/s. RateWindow 0 means 30 s.
	MinRate    int64
	RateWindow time.Duration
	// Deadline bounds a whole Fetch, attempts and waits included; what
	// arrived stays for the next Fetch to resume. 0 means 2 minutes plus
	// the time the download's bound (Source.Limit) takes at 32 KiB/s.
	Deadline time.Duration
	// Progress, if set, receives the progress of each download.
	Progress Progress
	// Notice, if set, receives what Fetch did besides downloading: a
	// partial download it discarded, and why.
	Notice func(msg string)
}

// SizeError is a download or an archive member larger than declared;
// nothing of it is kept.
type SizeError struct {
	What      string
	Got, Want int64
	// AtLeast marks Got as a lower bound: the download was stopped there.
	AtLeast bool
}

func (e *SizeError) Error() string {
	more := ""
	if e.AtLeast {
		more = "at least "
	}
	return fmt.Sprintf("%s: %s%d bytes, more than the %d declared (not kept)", e.What, more, e.Got, e.Want)
}

// errDeadline is a Fetch that ran past Client.Deadline.
var errDeadline = errors.New("deadline exceeded")

// errSlow is a server sending less than Client.MinRate.
var errSlow = errors.New("too slow")

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
	limit := src.Limit()
	if limit <= 0 {
		return fmt.Errorf("%s: no declared size: the download cannot be bounded", src.Name)
	}
	part := PartialPath(dir, src)
	if why := unusable(part, limit); why != "" {
		discard(part)
		c.notice(fmt.Sprintf("%s: discarded the partial download %s: %s; starting over", src.Name, part, why))
	}
	if err := os.MkdirAll(filepath.Dir(part), 0o755); err != nil {
		return err
	}
	deadline := c.Deadline
	if deadline <= 0 {
		deadline = 2*time.Minute + time.Duration(limit/(32<<10))*time.Second
	}
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, deadline, errDeadline)
	defer cancel()
	var err error
	for _, u := range src.URLs {
		if err = c.download(ctx, u, part, src, limit); err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		var se *SizeError
		var kept int64
		if fi, serr := os.Stat(part); serr == nil {
			kept = fi.Size()
		}
		switch {
		case errors.As(err, &se):
			discard(part)
		case kept == 0:
			discard(part)
		}
		if parent.Err() == nil && context.Cause(ctx) == errDeadline {
			err = fmt.Errorf("%w: the download took longer than %v in all", errDeadline, deadline)
			if kept > 0 {
				err = fmt.Errorf("%w (the %d bytes received are kept in %s; the next fetch resumes)", err, kept, part)
			}
		}
		return fmt.Errorf("%s: %w", src.Name, err)
	}
	if err := checkDownload(part, src); err != nil {
		discard(part)
		return err
	}
	if err := place(ctx, dir, part, src); err != nil {
		if parent.Err() == nil && ctx.Err() == nil {
			// The download is whole: what fails to unpack (an HTML page or
			// a short answer for an archive without a checksum) is no
			// prefix to resume from.
			discard(part)
			var ce *ChecksumError
			var se *SizeError
			if !errors.As(err, &ce) && !errors.As(err, &se) {
				err = fmt.Errorf("%w (the download was discarded: the next fetch starts over)", err)
			}
		}
		return err
	}
	discard(part)
	return nil
}

func (c *Client) notice(msg string) {
	if c.Notice != nil {
		c.Notice(msg)
	}
}

// unusable says why the partial download at part cannot be resumed: it
// is larger than the download's bound, or it is an HTML page (a portal's
// or a proxy's error answer kept by an earlier version). "" if it can
// be, or there is none.
func unusable(part string, limit int64) string {
	f, err := os.Open(part)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "not a regular file"
	}
	if fi.Size() > limit {
		return fmt.Sprintf("%d bytes, more than the download's bound of %d", fi.Size(), limit)
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	if isHTML(head[:n]) {
		return "it is an HTML page, not the file"
	}
	return ""
}

// isHTML reports whether b starts like an HTML document.
func isHTML(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n\ufeff")
	l := bytes.ToLower(b[:min(len(b), 14)])
	return bytes.HasPrefix(l, []byte("<!doctype html")) || bytes.HasPrefix(l, []byte("<html")) || bytes.HasPrefix(l, []byte("<head")) || bytes.HasPrefix(l, []byte("<body"))
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
func (c *Client) download(ctx context.Context, u, part string, src *Source, limit int64) error {
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
		err = c.get(ctx, mu, part, src, limit)
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

// idleReader restarts timer, which fails the attempt, at each read, and
// counts the bytes read in got.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	idle  time.Duration
	got   *atomic.Int64
}

func (r idleReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if n > 0 {
		r.timer.Reset(r.idle)
		r.got.Add(int64(n))
	}
	return n, err
}

// transient reports a failure worth another attempt.
func transient(err error) bool {
	if errors.Is(err, errRestart) || errors.Is(err, errIdle) || errors.Is(err, errSlow) {
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
// or the whole file again if the server ignores it. It writes at most
// limit bytes to part.
func (c *Client) get(ctx context.Context, u, part string, src *Source, limit int64) (err error) {
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
	// A server that sends, but less than MinRate over a window, too.
	minRate, window := c.MinRate, c.RateWindow
	if minRate <= 0 {
		minRate = 1 << 10
	}
	if window <= 0 {
		window = 30 * time.Second
	}
	var got atomic.Int64
	watch := make(chan struct{})
	defer close(watch)
	go func() {
		t := time.NewTicker(window)
		defer t.Stop()
		for {
			select {
			case <-watch:
				return
			case <-t.C:
				if n := got.Swap(0); float64(n) < float64(minRate)*window.Seconds() {
					cancel(errSlow)
					return
				}
			}
		}
	}()
	cutShort := func(err error) error {
		if ctx.Err() != nil {
			return err
		}
		switch context.Cause(actx) {
		case errIdle:
			return fmt.Errorf("%w after %v", errIdle, idle)
		case errSlow:
			return fmt.Errorf("%w: less than %d bytes/s over %v", errSlow, minRate, window)
		}
		return err
	}
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
		if e := cutShort(err); e != err {
			return fmt.Errorf("GET %s: %w", u, e)
		}
		return err
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode/100 == 2 && strings.HasPrefix(strings.ToLower(ct), "text/html") &&
		!strings.HasSuffix(src.Name, ".html") && !strings.HasSuffix(src.Name, ".htm") {
		// A portal's or a proxy's page, not the file.
		return &HTTPError{URL: u, Status: resp.Status + " with an HTML page (Content-Type " + ct + "), not the file", Code: resp.StatusCode}
	}
	total := int64(-1)
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		start, t, ok := contentRange(resp.Header.Get("Content-Range"))
		switch {
		case ok && start == have:
		case ok && start == 0:
			// The whole file after all: start over from it.
			if err := f.Truncate(0); err != nil {
				return err
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			have = 0
		default:
			// Not a continuation of what is here: discard it.
			if err := f.Truncate(0); err != nil {
				return err
			}
			return fmt.Errorf("GET %s: Content-Range %q does not continue the %d bytes already here: %w", u, resp.Header.Get("Content-Range"), have, errRestart)
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
	if total > limit {
		if err := f.Truncate(0); err != nil {
			return err
		}
		return &SizeError{What: "GET " + u + ": the server announces", Got: total, Want: limit}
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
	body := idleReader{r: resp.Body, timer: timer, idle: idle, got: &got}
	var n int64
	n, err = io.Copy(w, io.LimitReader(body, limit-have))
	if err == nil {
		// One byte more than the bound is not written: it fails the file.
		var one [1]byte
		if m, _ := io.ReadFull(body, one[:]); m > 0 {
			err = &SizeError{What: "GET " + u, Got: have + n + 1, Want: limit, AtLeast: true}
		}
	}
	if err != nil {
		err = cutShort(err)
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
		if f.Size > 0 && h.Size != f.Size {
			// Before a byte of it is written: the header says its size.
			return &SizeError{What: fmt.Sprintf("%s: archive member %s", src.Name, h.Name), Got: h.Size, Want: f.Size}
		}
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
	if f.Size > 0 {
		// At most one byte past the declared size is written (and then
		// removed): a gzip or an archive member cannot fill the disk.
		r = io.LimitReader(r, f.Size+1)
	}
	n, err := io.Copy(io.MultiWriter(w, h), ctxReader{ctx, r})
	if err != nil {
		return "", fmt.Errorf("%s: %w", dst, err)
	}
	if f.Size > 0 && n > f.Size {
		return "", &SizeError{What: f.Path, Got: n, Want: f.Size, AtLeast: true}
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
