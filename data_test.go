package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/fetch"
	"github.com/repro-ml/repro/spec"
)

const dataSpecFile = "testdata/data-csv.yaml"

// tinyCSV is the file data-csv.yaml reads; the test binary declares its
// source on a host that is never asked (the tests set a mirror).
var tinyCSV = []byte("a,b,y\n1,2,x\n2,1,z\n1,3,x\n3,1,z\n1,4,x\n4,1,z\n1,5,x\n5,1,z\n1,6,x\n6,1,z\n")

func init() {
	h := sha256.Sum256(tinyCSV)
	sum := hex.EncodeToString(h[:])
	fetch.Register(&fetch.Source{Name: "tiny.csv", URLs: []string{"https://data.example.org/repro-test/tiny.csv"},
		SHA256: sum, Size: int64(len(tinyCSV)),
		Files:   []fetch.File{{Path: "repro-test/tiny.csv", SHA256: sum, Size: int64(len(tinyCSV))}},
		License: "test data", Citation: "none"})
}

// mirror serves files by URL path on 127.0.0.1 and counts requests.
type mirror struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string][]byte
	reqs  int
}

func newMirror(t *testing.T, files map[string][]byte) *mirror {
	m := &mirror{files: files}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.reqs++
		b, ok := m.files[r.URL.Path]
		m.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(m.Close)
	return m
}

func TestDataCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	m := newMirror(t, map[string][]byte{"/repro-test/tiny.csv": tinyCSV})

	// A file missing: list exits 1 (issue 42: it exited 0).
	out, _ := mustCLI(t, exitFailed, "data", "list", dataSpecFile, "--data", dir)
	for _, want := range []string{"repro-test/tiny.csv  missing", "https://data.example.org/repro-test/tiny.csv",
		"0 of 1 verified, 1 missing: repro data fetch " + dataSpecFile + " --data " + dir} {
		if !strings.Contains(out, want) {
			t.Errorf("list before fetch: no %q in\n%s", want, out)
		}
	}
	// verify with FILE and a file missing: exit 1.
	out, _ = mustCLI(t, exitFailed, "data", "verify", dataSpecFile, "--data", dir)
	if !strings.Contains(out, "missing   repro-test/tiny.csv") {
		t.Errorf("verify: %s", out)
	}
	// run refuses it as validate --data does (exit 2), saying how to fetch it.
	_, stderr := mustCLI(t, exitUsage, "run", dataSpecFile, "--data", t.TempDir(), "-o", t.TempDir(), "-q")
	if !strings.Contains(stderr, "hint: fetch the experiment's data with: repro data fetch "+dataSpecFile+" --data ") {
		t.Errorf("run on missing data: no fetch hint in\n%s", stderr)
	}

	out, stderr = mustCLI(t, exitOK, "data", "fetch", dataSpecFile, "--data", dir, "--mirror", m.URL)
	if !strings.Contains(out, "fetched: repro-test/tiny.csv (verified)") || !strings.Contains(stderr, "downloading tiny.csv") {
		t.Errorf("fetch: stdout\n%s\nstderr\n%s", out, stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "repro-test", "tiny.csv")); !bytes.Equal(got, tinyCSV) {
		t.Errorf("fetched file differs from the served one")
	}
	mustCLI(t, exitOK, "data", "verify", dataSpecFile, "--data", dir)
	out, _ = mustCLI(t, exitOK, "data", "list", dataSpecFile, "--data", dir)
	if !strings.Contains(out, "repro-test/tiny.csv  present, verified") {
		t.Errorf("list after fetch:\n%s", out)
	}
	// A second fetch asks nothing.
	m.mu.Lock()
	m.reqs = 0
	m.mu.Unlock()
	out, _ = mustCLI(t, exitOK, "data", "fetch", dataSpecFile, "--data", dir, "--mirror", m.URL)
	if m.reqs != 0 || !strings.Contains(out, "present: repro-test/tiny.csv") {
		t.Errorf("second fetch: %d requests, output\n%s", m.reqs, out)
	}

	// One byte flipped: verify fails naming the file, fetch leaves it alone.
	p := filepath.Join(dir, "repro-test", "tiny.csv")
	bad := bytes.Clone(tinyCSV)
	bad[7] ^= 1
	if err := os.WriteFile(p, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ = mustCLI(t, exitFailed, "data", "verify", dataSpecFile, "--data", dir)
	if !strings.Contains(out, "MISMATCH  repro-test/tiny.csv: "+p) {
		t.Errorf("verify of a corrupt file:\n%s", out)
	}
	out, _ = mustCLI(t, exitFailed, "data", "verify", "--data", dir)
	if !strings.Contains(out, "MISMATCH  repro-test/tiny.csv") {
		t.Errorf("verify of every declared file:\n%s", out)
	}
	_, stderr = mustCLI(t, exitFailed, "data", "fetch", dataSpecFile, "--data", dir, "--mirror", m.URL)
	if !strings.Contains(stderr, "repro-test/tiny.csv: present but does not verify, left alone") {
		t.Errorf("fetch over a corrupt file: %s", stderr)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, bad) {
		t.Errorf("fetch replaced a file it was told not to touch")
	}
}

// $REPRO_DATA_MIRROR stands for --mirror; a 404 fails and keeps nothing;
// a corrupt download is refused.
func TestDataFetchMirrorEnv(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	m := newMirror(t, map[string][]byte{})
	t.Setenv(fetch.MirrorEnv, m.URL)
	_, stderr := mustCLI(t, exitFailed, "data", "fetch", dataSpecFile, "--data", dir)
	if !strings.Contains(stderr, "404 Not Found") || !strings.Contains(stderr, m.URL+"/repro-test/tiny.csv") {
		t.Errorf("fetch of a file the mirror lacks: %s", stderr)
	}
	if left, _ := fetch.Leftovers(dir); len(left) > 0 {
		t.Errorf("left behind after a 404: %v", left)
	}
	bad := bytes.Clone(tinyCSV)
	bad[0] = 'A'
	m.mu.Lock()
	m.files["/repro-test/tiny.csv"] = bad
	m.mu.Unlock()
	_, stderr = mustCLI(t, exitFailed, "data", "fetch", dataSpecFile, "--data", dir)
	if !strings.Contains(stderr, "tiny.csv: sha256 ") || !strings.Contains(stderr, "not kept") {
		t.Errorf("fetch of a corrupt file: %s", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "repro-test", "tiny.csv")); err == nil {
		t.Errorf("a corrupt download was placed")
	}
	if left, _ := fetch.Leftovers(dir); len(left) > 0 {
		t.Errorf("left behind after a corrupt download: %v", left)
	}
	mustCLI(t, exitUsage, "data", "fetch", dataSpecFile, "--data", dir, "--mirror", "no-scheme")
	mustCLI(t, exitUsage, "data", "list")
	mustCLI(t, exitUsage, "data", "frob")
}

// Every declared file checks out against the paper data, where present.
func TestDataDeclaredVerify(t *testing.T) {
	dir := os.Getenv(datasets.DataDirEnv)
	if dir == "" {
		t.Skip("$REPRO_DATA not set")
	}
	n := 0
	for _, p := range fetch.Paths() {
		_, f := fetch.Lookup(p)
		switch st := fetch.Verify(dir, f); st.State {
		case fetch.Verified:
			n++
		case fetch.Mismatch:
			t.Errorf("%s: %v", p, st.Err)
		}
	}
	if n == 0 {
		t.Skipf("no declared file in %s", dir)
	}
}

// The paper experiments fetch end to end from a mirror on 127.0.0.1 that
// serves what the original URLs would (built from $REPRO_DATA's files),
// into an empty data directory that then verifies.
func TestDataFetchPaper(t *testing.T) {
	src := os.Getenv(datasets.DataDirEnv)
	if src == "" || testing.Short() {
		t.Skip("needs $REPRO_DATA (the paper data) and not -short")
	}
	for _, exp := range []string{"experiments/sandler2008-fig3-sentiment.yaml", "experiments/bilgic2012-fig4-5-baselines.yaml",
		"experiments/szafranski2007-table2-census.yaml", "experiments/sandler2008-fig1-20newsgroups.yaml"} {
		sp, err := spec.Load(exp, nil)
		if err != nil {
			t.Fatal(err)
		}
		files, _ := dataFiles(sp)
		served := map[string][]byte{}
		for _, f := range files {
			if f.src == nil {
				t.Fatalf("%s: %s has no declared source", exp, f.path)
			}
			for _, u := range f.src.URLs {
				pu, _ := url.Parse(u)
				served[pu.Path] = mirrorBytes(t, src, f.src)
			}
		}
		m := newMirror(t, served)
		dir := t.TempDir()
		if strings.Contains(exp, "20newsgroups") {
			// The paper data's 20news-bydate.tar.gz is a re-tar, not the
			// original archive whose checksum is declared: refused.
			_, stderr := mustCLI(t, exitFailed, "data", "fetch", exp, "--data", dir, "--mirror", m.URL)
			if !strings.Contains(stderr, "20news-bydate.tar.gz: sha256 8ab7185c") || !strings.Contains(stderr, "(not kept)") {
				t.Errorf("%s: fetch of the re-tar: %s", exp, stderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("%s: the refused download left %v", exp, entries)
			}
			continue
		}
		mustCLI(t, exitOK, "data", "fetch", exp, "--data", dir, "--mirror", m.URL)
		mustCLI(t, exitOK, "data", "verify", exp, "--data", dir)
		if left, _ := fetch.Leftovers(dir); len(left) > 0 {
			t.Errorf("%s: left behind %v", exp, left)
		}
	}
}

// mirrorBytes returns the download of s as its URL would serve it, made
// from the files of s in dir: the file itself (decompressed if stored
// gzip-compressed) or a tar.gz of them.
func mirrorBytes(t *testing.T, dir string, s *fetch.Source) []byte {
	t.Helper()
	content := func(f fetch.File) []byte {
		b, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil {
			t.Skipf("%v", err)
		}
		if f.Gzip {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	switch s.Unpack {
	case fetch.Keep:
		return content(s.Files[0])
	case fetch.Untar:
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		for _, f := range s.Files {
			b := content(f)
			tw.WriteHeader(&tar.Header{Name: f.Member, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg})
			tw.Write(b)
		}
		tw.Close()
		zw.Close()
		return buf.Bytes()
	}
	t.Fatalf("%s: no mirror for unpack %v", s.Name, s.Unpack)
	return nil
}

// The progress of a download on a log (not a terminal): a line at the
// start, one per 10% at most every 5 s, one at the end.
func TestFetchProgressPlain(t *testing.T) {
	var buf bytes.Buffer
	p := newFetchProgress(&buf)
	clock := time.Unix(0, 0)
	p.now = func() time.Time { return clock }
	p.Start("x.tgz", 1000, 200)
	for range 8 { // 100 B every 3 s: a line every other 10%
		clock = clock.Add(3 * time.Second)
		p.Add(100)
	}
	p.Finish(nil)
	want := "downloading x.tgz (1 KB), resuming at 200 B\n" +
		"x.tgz: 40% (400 B of 1 KB)\nx.tgz: 60% (600 B of 1 KB)\nx.tgz: 80% (800 B of 1 KB)\n" +
		"x.tgz: 800 B in 24s\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// mirrorTest is a source the test binary declares: a tar.gz of two
// members, one stored gzip-compressed, as LINQS's archives are.
var mirrorContent, mirrorCites = bytes.Repeat([]byte("1 0 1 class\n"), 500), []byte("1 2\n")

func init() {
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	fetch.Register(&fetch.Source{Name: "mt.tgz", URLs: []string{"https://data.example.org/lbc/mt.tgz"}, Unpack: fetch.Untar,
		Files: []fetch.File{
			{Path: "repro-test/mt/mt.content.gz", Member: "mt/mt.content", Gzip: true, SHA256: sum(mirrorContent), Size: int64(len(mirrorContent))},
			{Path: "repro-test/mt/mt.cites", Member: "mt/mt.cites", SHA256: sum(mirrorCites), Size: int64(len(mirrorCites))},
		}, License: "test data", Citation: "none"})
}

// TestDataMirror is issue 42's case: a mirror for fetch --mirror built
// from a data directory was not described (files at the URL paths,
// stored-gzip files served decompressed). repro data mirror writes it;
// served on 127.0.0.1, fetch places the same files.
func TestDataMirror(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(filepath.Join(dir, "repro-test", "mt"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "repro-test", "tiny.csv"), tinyCSV, 0o644)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(mirrorContent)
	zw.Close()
	os.WriteFile(filepath.Join(dir, "repro-test", "mt", "mt.content.gz"), z.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "repro-test", "mt", "mt.cites"), mirrorCites, 0o644)

	out := filepath.Join(t.TempDir(), "mirror")
	stdout, _ := mustCLI(t, exitOK, "data", "mirror", out, dataSpecFile, "--data", dir)
	if !strings.Contains(stdout, "mirrored: "+filepath.Join(out, "repro-test", "tiny.csv")) {
		t.Errorf("mirror FILE:\n%s", stdout)
	}
	// Without FILE: every declared source present, the archive rebuilt.
	stdout, _ = mustCLI(t, exitOK, "data", "mirror", out, "--data", dir)
	if !strings.Contains(stdout, "mirrored: "+filepath.Join(out, "lbc", "mt.tgz")+" (from repro-test/mt/mt.content.gz, repro-test/mt/mt.cites)") {
		t.Errorf("mirror:\n%s", stdout)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()
	fresh := filepath.Join(t.TempDir(), "data")
	mustCLI(t, exitOK, "data", "fetch", dataSpecFile, "--data", fresh, "--mirror", srv.URL)
	src, _ := fetch.Lookup("repro-test/mt/mt.cites")
	if err := (&fetch.Client{Mirror: srv.URL, Attempts: 1}).Fetch(t.Context(), fresh, src); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"repro-test/tiny.csv", "repro-test/mt/mt.content.gz", "repro-test/mt/mt.cites"} {
		s, f := fetch.Lookup(p)
		if st := fetch.Verify(fresh, f); st.State != fetch.Verified || st.Copy != nil {
			t.Errorf("%s (%s) after a fetch from the mirror: %v %v", p, s.Name, st.State, st.Err)
		}
	}

	// A file that does not verify is not mirrored: exit 1, naming it.
	os.WriteFile(filepath.Join(dir, "repro-test", "tiny.csv"), []byte("x"), 0o644)
	_, stderr := mustCLI(t, exitFailed, "data", "mirror", t.TempDir(), dataSpecFile, "--data", dir)
	if !strings.Contains(stderr, "repro data mirror: tiny.csv: ") || !strings.Contains(stderr, "1 of the sources could not be mirrored") {
		t.Errorf("mirror of a corrupt file:\n%s", stderr)
	}
	mustCLI(t, exitUsage, "data", "mirror")
}

// TestDataFetchEndless is issue 43's case as the command meets it: a
// server that never stops sending wrote 9 GB in 30 s for a 192 KB file.
// The fetch stops at the declared size, keeps nothing and exits 1.
func TestDataFetchEndless(t *testing.T) {
	chunk := bytes.Repeat([]byte("1,2,x\n"), 10_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 20_000 && r.Context().Err() == nil; i++ { // at most 1.2 GB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "data")
	start := time.Now()
	_, stderr := mustCLI(t, exitFailed, "data", "fetch", dataSpecFile, "--data", dir, "--mirror", srv.URL)
	if !strings.Contains(stderr, fmt.Sprintf("more than the %d declared (not kept)", len(tinyCSV))) {
		t.Errorf("stderr:\n%s", stderr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	var written int64
	filepath.WalkDir(dir, func(_ string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if fi, err := e.Info(); err == nil {
				written += fi.Size()
			}
		}
		return nil
	})
	if written > 0 {
		t.Errorf("%d bytes left in %s", written, dir)
	}
}
