package fetch

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hostile serves handler on 127.0.0.1 and waits, at cleanup, for every
// handler to return: nothing is left running after a test.
func hostile(t *testing.T, handler func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	var busy sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		busy.Add(1)
		defer busy.Done()
		handler(w, r)
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		busy.Wait()
	})
	return srv
}

// partialSize returns the size of src's partial download in dir, -1 if
// there is none.
func partialSize(dir string, src *Source) int64 {
	fi, err := os.Stat(PartialPath(dir, src))
	if err != nil {
		return -1
	}
	return fi.Size()
}

// Issue 43: an endless body wrote 9 GB in 30 s for a 192 KB file. The
// download stops at the declared size, whether the server announces more
// (refused before a byte) or sends more than it announced (chunked), and
// nothing of it is kept.
func TestFetchEndlessBody(t *testing.T) {
	body := payload(4000)
	var sent atomic.Int64
	chunk := bytes.Repeat([]byte("x"), 1<<14)
	for _, announce := range []bool{false, true} {
		t.Run(fmt.Sprintf("announced=%v", announce), func(t *testing.T) {
			sent.Store(0)
			srv := hostile(t, func(w http.ResponseWriter, r *http.Request) {
				if announce {
					w.Header().Set("Content-Length", "9000000000")
				}
				for i := 0; i < 100_000 && r.Context().Err() == nil; i++ { // at most 1.6 GB
					n, err := w.Write(chunk)
					sent.Add(int64(n))
					if err != nil {
						return
					}
				}
			})
			src := keepSource("a.bin", body, srv.URL+"/a.bin")
			dir := t.TempDir()
			start := time.Now()
			err := quick().Fetch(context.Background(), dir, src)
			var se *SizeError
			if !errors.As(err, &se) || se.Want != int64(len(body)) || !strings.Contains(err.Error(), "more than the 4000 declared (not kept)") {
				t.Fatalf("error %v; want a SizeError at 4000 bytes", err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			if n := partialSize(dir, src); n >= 0 {
				t.Errorf("a partial of %d bytes kept", n)
			}
			if st := Verify(dir, &src.Files[0]); st.State != Missing {
				t.Errorf("file %v", st.State)
			}
			noLeftovers(t, dir)
		})
	}
	// A source of unknown size is bounded by its files' sizes and a margin.
	src := &Source{Name: "x.tgz", Unpack: Untar, Files: []File{{Path: "x/a", Member: "a", SHA256: sum(body), Size: 8 << 20}}}
	if got, want := src.Limit(), int64(8<<20+1<<20+limitMargin); got != want {
		t.Errorf("Limit %d, want %d", got, want)
	}
	src.Files[0].Size = 0
	if err := quick().Fetch(context.Background(), t.TempDir(), &Source{Name: "y", URLs: []string{"http://127.0.0.1:1/y"}, Files: []File{{Path: "y", SHA256: sum(body)}}}); err == nil || !strings.Contains(err.Error(), "no declared size") {
		t.Errorf("a source without any size: %v", err)
	}
	if err := src.check(); err == nil {
		t.Error("an untar member without a size registers")
	}
}

// rawTar returns a tar archive whose one member's header declares size
// bytes but holds only the bytes of content (a truncated archive).
func rawTar(t *testing.T, name string, size int64, content []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write(content)
	tw.Flush() // fails (the member is short); the header is out
	return buf.Bytes()
}

// Issue 43: a tar member of 1 GiB was written before its size was
// compared with the declaration. The header's size is compared first:
// not a byte of the member is written.
func TestFetchUntarMemberSize(t *testing.T) {
	a := []byte("alpha content\n")
	arch := rawTar(t, "x/a.txt", 1<<30, bytes.Repeat([]byte("a"), 10_000))
	srv := hostile(t, func(w http.ResponseWriter, r *http.Request) { w.Write(arch) })
	src := &Source{Name: "x.tar", URLs: []string{srv.URL + "/x.tar"}, Unpack: Untar, Files: []File{
		{Path: "x/a.txt", Member: "x/a.txt", SHA256: sum(a), Size: int64(len(a))},
	}}
	dir := t.TempDir()
	err := quick().Fetch(context.Background(), dir, src)
	var se *SizeError
	if !errors.As(err, &se) || se.Got != 1<<30 || !strings.Contains(err.Error(), "archive member x/a.txt: 1073741824 bytes, more than the 14 declared") {
		t.Fatalf("error %v; want a SizeError from the member's header", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "x")); len(entries) > 0 {
		t.Errorf("written: %v", entries)
	}
	if n := partialSize(dir, src); n >= 0 {
		t.Errorf("a partial of %d bytes kept", n)
	}
	noLeftovers(t, dir)

	// A gzip member that inflates past its declared size (a gzip bomb)
	// stops one byte past it.
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(make([]byte, 50<<20))
	zw.Close()
	srv2 := hostile(t, func(w http.ResponseWriter, r *http.Request) { w.Write(z.Bytes()) })
	bomb := &Source{Name: "b.gz", URLs: []string{srv2.URL + "/b.gz"}, Unpack: Gunzip, Files: []File{{Path: "b", SHA256: sum(a), Size: 1000}}}
	err = quick().Fetch(context.Background(), dir, bomb)
	if !errors.As(err, &se) || se.Got != 1001 {
		t.Fatalf("gzip bomb: %v; want a SizeError at 1001 bytes", err)
	}
	noLeftovers(t, dir)
}

// Issue 43: a server sending one byte every 20 s was still being read
// after 100 s (44 days for the file). A download below MinRate over a
// window fails its attempt; Deadline bounds the whole fetch, keeping what
// arrived for the next one to resume.
func TestFetchSlowServer(t *testing.T) {
	body := payload(100_000)
	trickle := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		for i := 0; i < len(body) && r.Context().Err() == nil; i++ {
			w.Write(body[i : i+1])
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	src := keepSource("a.bin", body, trickle.URL+"/a.bin")
	dir := t.TempDir()
	c := quick()
	c.Attempts, c.MinRate, c.RateWindow = 2, 1000, 200*time.Millisecond
	start := time.Now()
	err := c.Fetch(context.Background(), dir, src)
	if !errors.Is(err, errSlow) || !strings.Contains(err.Error(), "too slow: less than 1000 bytes/s over 200ms (after 2 attempts)") {
		t.Fatalf("error %v; want too slow after 2 attempts", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cut off after %v", d)
	}

	// Fast enough, but not done by the deadline: cut off, the bytes
	// received kept, and the next fetch resumes from them.
	slow := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		start := 0
		if rg := r.Header.Get("Range"); rg != "" {
			fmt.Sscanf(rg, "bytes=%d-", &start)
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(body)-1, len(body)))
			w.WriteHeader(http.StatusPartialContent)
		}
		for i := start; i < len(body) && r.Context().Err() == nil; i += 1000 {
			w.Write(body[i:min(i+1000, len(body))])
			w.(http.Flusher).Flush()
			time.Sleep(10 * time.Millisecond)
		}
	})
	src = keepSource("b.bin", body, slow.URL+"/b.bin")
	dir = t.TempDir() // the trickle's partial stays in the other
	c = quick()
	c.Deadline = 300 * time.Millisecond
	start = time.Now()
	err = c.Fetch(context.Background(), dir, src)
	if !errors.Is(err, errDeadline) || !strings.Contains(err.Error(), "the download took longer than 300ms in all") || !strings.Contains(err.Error(), "the next fetch resumes") {
		t.Fatalf("error %v; want the deadline", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cut off after %v", d)
	}
	kept := partialSize(dir, src)
	if kept <= 0 || kept >= int64(len(body)) {
		t.Fatalf("partial of %d bytes; want part of %d", kept, len(body))
	}
	c.Deadline = 0
	if err := c.Fetch(context.Background(), dir, src); err != nil {
		t.Fatal(err)
	}
	if st := Verify(dir, &src.Files[0]); st.State != Verified {
		t.Errorf("after resuming: %v %v", st.State, st.Err)
	}
	noLeftovers(t, dir)
}

// Issue 43: an HTML or short answer for an archive without a checksum
// (cora, citeseer) was kept as a partial, and every later fetch from a
// correct server resumed from it and failed; a 206 answer that starts
// at 0 did the same. Now: an HTML page is refused, a whole download that
// does not unpack is discarded with a message, a 206 from 0 is taken as
// the whole file, and a stale HTML partial is discarded with a notice.
func TestFetchUnresumable(t *testing.T) {
	a, b := payload(30_000), []byte("1 2\n2 3\n")
	tgz := tarGz(t, map[string][]byte{"cora/cora.content": a, "cora/cora.cites": b})
	var mode atomic.Int32 // 0 good, 1 HTML page, 2 short answer, 3 206 from 0
	srv := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load() {
		case 1:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!DOCTYPE html><html><body>Please log in</body></html>")
			return
		case 2:
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(tgz[:100])
			return
		case 3:
			if r.Header.Get("Range") != "" {
				w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-%d/%d", len(tgz)-1, len(tgz)))
				w.WriteHeader(http.StatusPartialContent)
			}
		}
		w.Write(tgz)
	})
	src := &Source{Name: "cora.tgz", URLs: []string{srv.URL + "/cora.tgz"}, Unpack: Untar, Files: []File{
		{Path: "cora/cora.content.gz", Member: "cora/cora.content", Gzip: true, SHA256: sum(a), Size: int64(len(a))},
		{Path: "cora/cora.cites", Member: "cora/cora.cites", SHA256: sum(b), Size: int64(len(b))},
	}}
	verified := func(dir string) bool {
		for i := range src.Files {
			if Verify(dir, &src.Files[i]).State != Verified {
				return false
			}
		}
		return true
	}
	for _, tc := range []struct {
		name string
		mode int32
		want string
	}{
		{"html page", 1, "with an HTML page (Content-Type text/html; charset=utf-8), not the file"},
		{"short answer", 2, "(the download was discarded: the next fetch starts over)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			mode.Store(tc.mode)
			err := quick().Fetch(context.Background(), dir, src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want %q", err, tc.want)
			}
			if n := partialSize(dir, src); n >= 0 {
				t.Errorf("a partial of %d bytes kept", n)
			}
			mode.Store(0)
			if err := quick().Fetch(context.Background(), dir, src); err != nil || !verified(dir) {
				t.Fatalf("the next fetch from a correct server: %v", err)
			}
			noLeftovers(t, dir)
		})
	}
	t.Run("206 from 0", func(t *testing.T) {
		dir := t.TempDir()
		part := PartialPath(dir, src)
		os.MkdirAll(filepath.Dir(part), 0o755)
		os.WriteFile(part, tgz[:len(tgz)/2], 0o644)
		mode.Store(3)
		if err := quick().Fetch(context.Background(), dir, src); err != nil || !verified(dir) {
			t.Fatalf("206 from byte 0: %v", err)
		}
		noLeftovers(t, dir)
	})
	t.Run("stale html partial", func(t *testing.T) {
		dir := t.TempDir()
		part := PartialPath(dir, src)
		os.MkdirAll(filepath.Dir(part), 0o755)
		os.WriteFile(part, []byte("\n<!DOCTYPE HTML PUBLIC>\n<html>gateway timeout</html>"), 0o644)
		mode.Store(0)
		var notes []string
		c := quick()
		c.Notice = func(m string) { notes = append(notes, m) }
		if err := c.Fetch(context.Background(), dir, src); err != nil || !verified(dir) {
			t.Fatalf("after a stale HTML partial: %v", err)
		}
		if len(notes) != 1 || !strings.Contains(notes[0], "discarded the partial download") || !strings.Contains(notes[0], "an HTML page, not the file") {
			t.Errorf("notices %q", notes)
		}
		noLeftovers(t, dir)
	})
}
