package fetch

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// payload returns n deterministic bytes.
func payload(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// server serves files by path on 127.0.0.1, honouring Range, and records
// what it was asked and how many bytes it sent.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	busy    sync.WaitGroup // handlers running
	files   map[string][]byte
	fail    int      // answer 503 to this many requests first
	cutAt   int      // if > 0, close the connection after this many bytes, once
	stall   bool     // send half, then wait for the client to go away
	stalls  int      // stall this many responses, then serve
	noRange bool     // ignore Range headers
	ranges  []string // Range header of each request
	sent    int      // body bytes sent, over all requests
	reqs    int
}

func newServer(t *testing.T, files map[string][]byte) *server {
	s := &server{files: files}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	s.busy.Add(1)
	defer s.busy.Done()
	s.mu.Lock()
	s.reqs++
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	body, ok := s.files[r.URL.Path]
	fail := s.fail > 0
	if fail {
		s.fail--
	}
	cut, stall, noRange := s.cutAt, s.stall || s.stalls > 0, s.noRange
	if s.stalls > 0 {
		s.stalls--
	}
	s.cutAt = 0
	s.mu.Unlock()
	if fail {
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	start := 0
	if rg := r.Header.Get("Range"); rg != "" && !noRange {
		fmt.Sscanf(rg, "bytes=%d-", &start)
		if start >= len(body) {
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(body)-1, len(body)))
		w.Header().Set("Content-Length", fmt.Sprint(len(body)-start))
		w.WriteHeader(http.StatusPartialContent)
	} else {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(http.StatusOK)
	}
	rest := body[start:]
	if stall {
		n, _ := w.Write(rest[:len(rest)/2])
		s.count(n)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	if cut > 0 && cut < len(rest) {
		n, _ := w.Write(rest[:cut])
		s.count(n)
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	n, _ := w.Write(rest)
	s.count(n)
}

// stats returns the requests, their Range headers and the bytes sent,
// once every handler has returned.
func (s *server) stats() (reqs int, ranges []string, sent int) {
	s.busy.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs, slices.Clone(s.ranges), s.sent
}

// set changes the server's faults under its lock.
func (s *server) set(f func(*server)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

// reset clears the counts and the faults.
func (s *server) reset() {
	s.busy.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs, s.ranges, s.sent, s.fail, s.stall, s.stalls, s.cutAt = 0, nil, 0, 0, false, 0, 0
}

func (s *server) count(n int) {
	s.mu.Lock()
	s.sent += n
	s.mu.Unlock()
}

func keepSource(name string, body []byte, url string) *Source {
	return &Source{Name: name, URLs: []string{url}, SHA256: sum(body), Size: int64(len(body)),
		Files: []File{{Path: "d/" + name, SHA256: sum(body), Size: int64(len(body))}}}
}

func quick() *Client { return &Client{Attempts: 4, Backoff: time.Millisecond} }

// noLeftovers fails if dir holds a partial download or a temporary file.
func noLeftovers(t *testing.T, dir string) {
	t.Helper()
	left, err := Leftovers(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestFetchGood(t *testing.T) {
	body := payload(100_000)
	srv := newServer(t, map[string][]byte{"/files/a.bin": body})
	src := keepSource("a.bin", body, srv.URL+"/files/a.bin")
	dir := t.TempDir()
	if err := quick().Fetch(context.Background(), dir, src); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "d", "a.bin"))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("placed file: %d bytes, %v; want the %d served", len(got), err, len(body))
	}
	if st := Verify(dir, &src.Files[0]); st.State != Verified {
		t.Errorf("Verify: %v %v", st.State, st.Err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "d", "a.bin")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("placed file's mode %v, %v; want -rw-r--r--", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, PartialDir)); err == nil {
		t.Errorf("%s left behind", PartialDir)
	}
	noLeftovers(t, dir)
}

// A partial download is resumed: only the missing bytes are requested.
func TestFetchResume(t *testing.T) {
	body := payload(200_000)
	srv := newServer(t, map[string][]byte{"/a.bin": body})
	src := keepSource("a.bin", body, srv.URL+"/a.bin")
	dir := t.TempDir()
	part := PartialPath(dir, src)
	os.MkdirAll(filepath.Dir(part), 0o755)
	const have = 123_456
	if err := os.WriteFile(part, body[:have], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := quick().Fetch(context.Background(), dir, src); err != nil {
		t.Fatal(err)
	}
	_, ranges, sent := srv.stats()
	if len(ranges) != 1 || ranges[0] != fmt.Sprintf("bytes=%d-", have) {
		t.Errorf("requests' Range headers %q; want one bytes=%d-", ranges, have)
	}
	if sent != len(body)-have {
		t.Errorf("server sent %d bytes; want the %d missing", sent, len(body)-have)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "d", "a.bin")); !bytes.Equal(got, body) {
		t.Errorf("resumed file differs from the served one")
	}
	noLeftovers(t, dir)
}

// A connection cut mid-way is retried from where it stopped.
func TestFetchCutResumes(t *testing.T) {
	body := payload(300_000)
	srv := newServer(t, map[string][]byte{"/a.bin": body})
	srv.set(func(s *server) { s.cutAt = 100_000 })
	src := keepSource("a.bin", body, srv.URL+"/a.bin")
	dir := t.TempDir()
	if err := quick().Fetch(context.Background(), dir, src); err != nil {
		t.Fatal(err)
	}
	reqs, ranges, sent := srv.stats()
	if reqs != 2 || ranges[0] != "" || ranges[1] != "bytes=100000-" {
		t.Errorf("%d requests with Range %q; want a plain GET, then one from byte 100000", reqs, ranges)
	}
	if sent != len(body) {
		t.Errorf("server sent %d bytes in all; want %d (nothing twice)", sent, len(body))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "d", "a.bin")); !bytes.Equal(got, body) {
		t.Errorf("file differs from the served one")
	}
}

// A server that ignores Range sends the whole file again; it is not
// appended to the partial one.
func TestFetchServerIgnoresRange(t *testing.T) {
	body := payload(50_000)
	srv := newServer(t, map[string][]byte{"/a.bin": body})
	srv.set(func(s *server) { s.noRange = true })
	src := keepSource("a.bin", body, srv.URL+"/a.bin")
	dir := t.TempDir()
	part := PartialPath(dir, src)
	os.MkdirAll(filepath.Dir(part), 0o755)
	os.WriteFile(part, body[:20_000], 0o644)
	if err := quick().Fetch(context.Background(), dir, src); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "d", "a.bin")); !bytes.Equal(got, body) {
		t.Errorf("file differs from the served one")
	}
}

// A download with another checksum is refused and nothing is kept.
func TestFetchCorrupt(t *testing.T) {
	body := payload(80_000)
	bad := bytes.Clone(body)
	bad[4000] ^= 1
	srv := newServer(t, map[string][]byte{"/a.bin": bad})
	src := keepSource("a.bin", body, srv.URL+"/a.bin")
	dir := t.TempDir()
	err := quick().Fetch(context.Background(), dir, src)
	var ce *ChecksumError
	if !errors.As(err, &ce) || ce.Got != sum(bad) || ce.Want != sum(body) {
		t.Fatalf("error %v; want a ChecksumError with sha256 %s, want %s", err, sum(bad), sum(body))
	}
	if reqs, _, _ := srv.stats(); reqs != 1 {
		t.Errorf("%d requests; a checksum mismatch is not retried", reqs)
	}
	if _, err := os.Stat(filepath.Join(dir, "d", "a.bin")); err == nil {
		t.Errorf("the corrupt file was placed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("data dir holds %v after a refused download; want nothing", entries)
	}
}

// Without an archive checksum, each extracted file is checked: one corrupt
// member refuses every file of the archive.
func TestFetchUntarCorruptMember(t *testing.T) {
	a, b := []byte("alpha content\n"), []byte("beta content\n")
	tgz := tarGz(t, map[string][]byte{"x/a.txt": a, "x/b.txt": []byte("beta c0ntent\n")})
	srv := newServer(t, map[string][]byte{"/x.tgz": tgz})
	src := &Source{Name: "x.tgz", URLs: []string{srv.URL + "/x.tgz"}, Unpack: Untar, Files: []File{
		{Path: "x/a.txt", Member: "x/a.txt", SHA256: sum(a), Size: int64(len(a))},
		{Path: "x/b.txt", Member: "x/b.txt", SHA256: sum(b), Size: int64(len(b))},
	}}
	dir := t.TempDir()
	err := quick().Fetch(context.Background(), dir, src)
	var ce *ChecksumError
	if !errors.As(err, &ce) || ce.What != "x/b.txt" {
		t.Fatalf("error %v; want a ChecksumError for x/b.txt", err)
	}
	for _, p := range []string{"x/a.txt", "x/b.txt"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s placed from an archive with a corrupt member", p)
		}
	}
	noLeftovers(t, dir)
}

// Untar with a gzip-stored file and a plain one; the stored gzip verifies
// by its content.
func TestFetchUntar(t *testing.T) {
	a, b := payload(30_000), []byte("1 2\n2 3\n")
	tgz := tarGz(t, map[string][]byte{"cora/cora.content": a, "cora/cora.cites": b, "cora/README": []byte("x")})
	srv := newServer(t, map[string][]byte{"/lbc/cora.tgz": tgz})
	src := &Source{Name: "cora.tgz", URLs: []string{"https://example.org/lbc/cora.tgz"}, Unpack: Untar, Files: []File{
		{Path: "cora/cora.content.gz", Member: "cora/cora.content", Gzip: true, SHA256: sum(a), Size: int64(len(a))},
		{Path: "cora/cora.cites", Member: "cora/cora.cites", SHA256: sum(b), Size: int64(len(b))},
	}}
	dir := t.TempDir()
	c := quick()
	c.Mirror = srv.URL // example.org is never asked
	if err := c.Fetch(context.Background(), dir, src); err != nil {
		t.Fatal(err)
	}
	for i := range src.Files {
		if st := Verify(dir, &src.Files[i]); st.State != Verified {
			t.Errorf("%s: %v %v", src.Files[i].Path, st.State, st.Err)
		}
	}
	zf, _ := os.Open(filepath.Join(dir, "cora", "cora.content.gz"))
	defer zf.Close()
	zr, err := gzip.NewReader(zf)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(zr); !bytes.Equal(got, a) {
		t.Errorf("cora.content.gz does not decompress to the member")
	}
	if _, err := os.Stat(filepath.Join(dir, "cora", "README")); err == nil {
		t.Errorf("an undeclared member was extracted")
	}
	noLeftovers(t, dir)
}

func TestFetch404(t *testing.T) {
	srv := newServer(t, map[string][]byte{})
	body := payload(10)
	src := keepSource("a.bin", body, srv.URL+"/nope.bin")
	dir := t.TempDir()
	err := quick().Fetch(context.Background(), dir, src)
	var he *HTTPError
	if !errors.As(err, &he) || he.Code != http.StatusNotFound || !strings.Contains(err.Error(), "/nope.bin") {
		t.Fatalf("error %v; want an HTTPError 404 naming the URL", err)
	}
	if reqs, _, _ := srv.stats(); reqs != 1 {
		t.Errorf("%d requests; a 404 is not retried", reqs)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("data dir holds %v after a 404; want nothing", entries)
	}
}

// 503 is retried with backoff; success on the third attempt.
func TestFetchRetries503(t *testing.T) {
	body := payload(5000)
	srv := newServer(t, map[string][]byte{"/a.bin": body})
	srv.set(func(s *server) { s.fail = 2 })
	src := keepSource("a.bin", body, srv.URL+"/a.bin")
	dir := t.TempDir()
	if err := quick().Fetch(context.Background(), dir, src); err != nil {
		t.Fatal(err)
	}
	if reqs, _, _ := srv.stats(); reqs != 3 {
		t.Errorf("%d requests; want 2 refused and 1 served", reqs)
	}
	// Always busy: it gives up after Attempts, saying so.
	srv.reset()
	srv.set(func(s *server) { s.fail = 100 })
	dir = t.TempDir()
	err := quick().Fetch(context.Background(), dir, src)
	var he *HTTPError
	if !errors.As(err, &he) || he.Code != 503 || !strings.Contains(err.Error(), "after 4 attempts") {
		t.Errorf("error %v; want a 503 after 4 attempts", err)
	}
	if reqs, _, _ := srv.stats(); reqs != 4 {
		t.Errorf("%d requests; want 4", reqs)
	}
}

// cancelAfter cancels a context once the first bytes arrive.
type cancelAfter struct {
	cancel context.CancelFunc
	got    int64
}

func (c *cancelAfter) Start(string, int64, int64) {}
func (c *cancelAfter) Add(n int64) {
	c.got += n
	c.cancel()
}
func (c *cancelAfter) Finish(error) {}

// A slow download cancelled (Ctrl-C) leaves no file that looks valid: the
// bytes received wait in the partial directory, and the next fetch
// resumes from them.
func TestFetchCancelSlow(t *testing.T) {
	body := payload(400_000)
	srv := newServer(t, map[string][]byte{"/a.bin": body})
	srv.set(func(s *server) { s.stall = true })
	src := keepSource("a.bin", body, srv.URL+"/a.bin")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := quick()
	c.Progress = &cancelAfter{cancel: cancel}
	done := make(chan error)
	go func() { done <- c.Fetch(ctx, dir, src) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Fetch did not return after its context was cancelled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v; want context.Canceled", err)
	}
	if st := Verify(dir, &src.Files[0]); st.State != Missing {
		t.Fatalf("after the cancel the file is %v; want missing", st.State)
	}
	fi, err := os.Stat(PartialPath(dir, src))
	if err != nil || fi.Size() == 0 || fi.Size() >= int64(len(body)) {
		t.Fatalf("partial download: %v, %v; want some but not all bytes kept for resuming", fi, err)
	}
	kept := fi.Size()
	// Next time: the rest, and the file.
	srv.reset()
	if err := quick().Fetch(context.Background(), dir, src); err != nil {
		t.Fatal(err)
	}
	if _, ranges, sent := srv.stats(); sent != len(body)-int(kept) || len(ranges) != 1 || ranges[0] != fmt.Sprintf("bytes=%d-", kept) {
		t.Errorf("resume sent %d bytes with Range %q; want the %d missing from byte %d", sent, ranges, len(body)-int(kept), kept)
	}
	if st := Verify(dir, &src.Files[0]); st.State != Verified {
		t.Errorf("after resuming: %v %v", st.State, st.Err)
	}
	noLeftovers(t, dir)
}

// A server that stops sending fails the attempt after Client.Idle; the
// next attempt resumes where it stopped.
func TestFetchIdleRetries(t *testing.T) {
	body := payload(100_000)
	srv := newServer(t, map[string][]byte{"/a.bin": body})
	srv.set(func(s *server) { s.stalls = 1 })
	src := keepSource("a.bin", body, srv.URL+"/a.bin")
	dir := t.TempDir()
	c := quick()
	c.Idle = 200 * time.Millisecond
	if err := c.Fetch(context.Background(), dir, src); err != nil {
		t.Fatal(err)
	}
	if reqs, ranges, sent := srv.stats(); reqs != 2 || ranges[1] != "bytes=50000-" || sent != len(body) {
		t.Errorf("%d requests with Range %q, %d bytes sent; want a stalled one, then one from byte 50000, %d bytes in all", reqs, ranges, sent, len(body))
	}
	// Stalled every time: it gives up, saying why.
	srv.reset()
	srv.set(func(s *server) { s.stall = true })
	c.Attempts = 2
	err := c.Fetch(context.Background(), t.TempDir(), src)
	if err == nil || !strings.Contains(err.Error(), "nothing received after 200ms (after 2 attempts)") {
		t.Errorf("error %v; want nothing received after 200ms, after 2 attempts", err)
	}
}

// A cancel while the files are written leaves no temporary and no file.
func TestPlaceCancelled(t *testing.T) {
	body := payload(1000)
	src := keepSource("a.bin", body, "http://unused/a.bin")
	dir := t.TempDir()
	part := filepath.Join(dir, "download")
	os.WriteFile(part, body, 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := place(ctx, dir, part, src); !errors.Is(err, context.Canceled) {
		t.Fatalf("place: %v; want context.Canceled", err)
	}
	if st := Verify(dir, &src.Files[0]); st.State != Missing {
		t.Errorf("file %v after a cancelled place", st.State)
	}
	noLeftovers(t, dir)
}

func TestMirrorURL(t *testing.T) {
	for _, c := range []struct{ u, mirror, want string }{
		{"https://raw.githubusercontent.com/o/r/c/a.txt", "", "https://raw.githubusercontent.com/o/r/c/a.txt"},
		{"https://raw.githubusercontent.com/o/r/c/a.txt", "http://127.0.0.1:8080", "http://127.0.0.1:8080/o/r/c/a.txt"},
		{"http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz", "http://10.0.0.1/data/", "http://10.0.0.1/data/~jason/20Newsgroups/20news-bydate.tar.gz"},
		{"https://h/files/5975967?x=1", "http://m:1/p", "http://m:1/p/files/5975967?x=1"},
	} {
		got, err := MirrorURL(c.u, c.mirror)
		if err != nil || got != c.want {
			t.Errorf("MirrorURL(%q, %q) = %q, %v; want %q", c.u, c.mirror, got, err, c.want)
		}
	}
	if _, err := MirrorURL("https://h/a", "127.0.0.1:8080"); err == nil {
		t.Errorf("a mirror without a scheme was accepted")
	}
}

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	body := []byte("content\n")
	os.WriteFile(filepath.Join(dir, "f.txt"), body, 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(body)
	zw.Close()
	os.WriteFile(filepath.Join(dir, "f.txt.gz"), gz.Bytes(), 0o644)
	other := []byte("another copy\n")
	for _, c := range []struct {
		name string
		f    File
		want State
		copy bool
	}{
		{"raw", File{Path: "f.txt", SHA256: sum(body), Size: int64(len(body))}, Verified, false},
		{"gzip content", File{Path: "f.txt.gz", Gzip: true, SHA256: sum(body)}, Verified, false},
		{"gzip bytes", File{Path: "f.txt.gz", SHA256: sum(gz.Bytes())}, Verified, false},
		{"gzip read as content of another", File{Path: "f.txt.gz", Gzip: true, SHA256: sum(other)}, Mismatch, false},
		{"wrong size", File{Path: "f.txt", SHA256: sum(body), Size: 3}, Mismatch, false},
		{"known copy", File{Path: "f.txt", SHA256: sum(other), Known: []Copy{{SHA256: sum(body), Note: "re-pack"}}}, Verified, true},
		{"missing", File{Path: "g.txt", SHA256: sum(body)}, Missing, false},
		{"not gzip", File{Path: "f.txt", Gzip: true, SHA256: sum(body)}, Mismatch, false},
	} {
		st := Verify(dir, &c.f)
		if st.State != c.want || (st.Copy != nil) != c.copy {
			t.Errorf("%s: %v (copy %v, %v); want %v", c.name, st.State, st.Copy, st.Err, c.want)
		}
		if st.State == Mismatch && (st.Err == nil || !strings.Contains(st.Err.Error(), c.f.Path)) {
			t.Errorf("%s: error %v does not name %s", c.name, st.Err, c.f.Path)
		}
	}
}

func TestRegisterRefuses(t *testing.T) {
	h := sum(nil)
	for name, s := range map[string]*Source{
		"no files":         {Name: "a"},
		"path name":        {Name: "x/a", Files: []File{{Path: "a", SHA256: h}}},
		"bad sha":          {Name: "a", Files: []File{{Path: "a", SHA256: "abc"}}},
		"unclean path":     {Name: "a", Files: []File{{Path: "x/../a", SHA256: h}}},
		"absolute path":    {Name: "a", Files: []File{{Path: "/a", SHA256: h}}},
		"two kept":         {Name: "a", Files: []File{{Path: "a", SHA256: h}, {Path: "b", SHA256: h}}},
		"member w/o untar": {Name: "a", Files: []File{{Path: "a", Member: "a", SHA256: h}}},
		"partial dir":      {Name: "a", Files: []File{{Path: ".partial/a", SHA256: h}}},
	} {
		if err := s.check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func tarGz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range []string{"cora/README", "cora/cora.cites", "cora/cora.content", "x/a.txt", "x/b.txt"} {
		b, ok := files[name]
		if !ok {
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}
