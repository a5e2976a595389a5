package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/datasets/fetch"
	"github.com/repro-ml/repro/internal/atomicfile"
	"github.com/repro-ml/repro/runner"
	"github.com/repro-ml/repro/spec"
)

const dataUsage = `usage: repro data list FILE.yaml [--data DIR]
       repro data fetch FILE.yaml [--data DIR] [--mirror URL]
       repro data verify [FILE.yaml] [--data DIR]
       repro data mirror OUT [FILE.yaml] [--data DIR]

list    the data files the experiment reads, where each comes from (URL, checksum,
        licence, citation) and whether it is present and verified in the data directory;
        exit 1 if one is missing or does not verify
fetch   download the missing files (resuming a partial download kept in DIR/.partial),
        check each against its checksum and place it; a file present with another
        checksum is left alone and reported
verify  check the files present (the experiment's, or every declared file) against
        their checksums; exit 1 if one differs (or, with FILE, is missing)
mirror  write into OUT the tree a mirror serves for fetch --mirror, from the data
        directory's files (the experiment's, or every declared file present): each
        download at its URL's path, a file stored gzip-compressed as its URL serves it
        (decompressed), an archive rebuilt from its members; serve OUT over HTTP
        (python3 -m http.server -d OUT 8080) and fetch with --mirror http://HOST:8080

The data directory is --data, else $REPRO_DATA, else the user cache directory.
--mirror (default $REPRO_DATA_MIRROR) replaces the scheme and host of every URL.
`

// cmdData runs `repro data list|fetch|verify`.
func cmdData(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, dataUsage)
		return exitUsage
	}
	switch args[0] {
	case "list":
		return cmdDataList(stdout, stderr, args[1:])
	case "fetch":
		return cmdDataFetch(ctx, stdout, stderr, args[1:])
	case "verify":
		return cmdDataVerify(stdout, stderr, args[1:])
	case "mirror":
		return cmdDataMirror(stdout, stderr, args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, dataUsage)
		return exitOK
	}
	fmt.Fprintf(stderr, "repro data: unknown command %q\n\n%s", args[0], dataUsage)
	return exitUsage
}

// dataFile is a data file an experiment reads.
type dataFile struct {
	path string   // relative to the data directory, as the params name it
	ids  []string // the dataset entries that read it
	src  *fetch.Source
	file *fetch.File // nil: no source declared
}

// in returns the file's path in the data directory dir (an absolute path
// as it is).
func (f *dataFile) in(dir string) string {
	if filepath.IsAbs(f.path) {
		return f.path
	}
	return filepath.Join(dir, f.path)
}

// dataFiles returns the files spec's datasets read, in spec order, each
// once, and the entries whose plugin declares no files (embedded data).
func dataFiles(sp *spec.Spec) (files []*dataFile, undeclared []string) {
	byPath := map[string]*dataFile{}
	for _, ds := range sp.Datasets {
		l, err := datasets.Lookup(ds.Name)
		if err != nil || l.Files == nil {
			undeclared = append(undeclared, fmt.Sprintf("%s (%s)", ds.ID, ds.Name))
			continue
		}
		for _, p := range l.Files(ds.Params) {
			p = filepath.ToSlash(filepath.Clean(p))
			f := byPath[p]
			if f == nil {
				f = &dataFile{path: p}
				f.src, f.file = fetch.Lookup(p)
				byPath[p] = f
				files = append(files, f)
			}
			id := ds.ID
			if id != ds.Name {
				id += " (" + ds.Name + ")"
			}
			if !slices.Contains(f.ids, id) {
				f.ids = append(f.ids, id)
			}
		}
	}
	return files, undeclared
}

// dataSpec parses the data commands' flags and loads the experiment.
func dataSpec(name string, stderr io.Writer, args []string, optional bool, extra func(*flag.FlagSet)) (sp *spec.Spec, arg, dir string, code int) {
	fs := newFlags("data "+name, stderr, "data "+name)
	fs.Usage = func() { fmt.Fprint(stderr, dataUsage) }
	data := fs.String("data", "", "data directory (default $"+datasets.DataDirEnv+", else the user cache directory)")
	if extra != nil {
		extra(fs)
	}
	pos, err := parse(fs, args)
	if err != nil {
		return nil, "", "", exitUsage
	}
	if len(pos) > 1 || len(pos) == 0 && !optional {
		fs.Usage()
		return nil, "", "", exitUsage
	}
	dir = datasets.DataDir(*data)
	if len(pos) == 0 {
		return nil, "", dir, exitOK
	}
	arg = pos[0]
	if sp, err = loadSpec(arg, nil, stderr); err != nil {
		return nil, "", "", exitUsage
	}
	return sp, arg, dir, exitOK
}

// fetchCommand is the command that fetches the data of experiment arg into
// dir.
func fetchCommand(arg, dir string) string {
	return fmt.Sprintf("repro data fetch %s --data %s", arg, dir)
}

func cmdDataList(stdout, stderr io.Writer, args []string) int {
	sp, arg, dir, code := dataSpec("list", stderr, args, false, nil)
	if sp == nil {
		return code
	}
	files, undeclared := dataFiles(sp)
	fmt.Fprintf(stdout, "%s reads %d data files; data directory %s\n", sp.Name, len(files), dir)
	if len(undeclared) > 0 {
		fmt.Fprintf(stdout, "no data files: %s\n", strings.Join(undeclared, ", "))
	}
	var verified, missing, bad int
	for _, f := range files {
		fmt.Fprintln(stdout)
		state := "no checksum declared"
		if f.file != nil {
			st := fetch.Verify(dir, f.file)
			switch st.State {
			case fetch.Verified:
				verified++
				state = "present, verified"
				if st.Copy != nil {
					state += " (known copy: " + st.Copy.Note + ")"
				}
			case fetch.Missing:
				missing++
				state = "missing"
			default:
				bad++
				state = "present, DOES NOT VERIFY: " + st.Err.Error()
			}
		} else if _, err := os.Stat(f.in(dir)); err != nil {
			missing++
			state = "missing"
		}
		fmt.Fprintf(stdout, "%s  %s\n", f.path, state)
		fmt.Fprintf(stdout, "  dataset  %s\n", strings.Join(f.ids, ", "))
		if f.file == nil {
			fmt.Fprintf(stdout, "  from     no source declared (the experiment's own file)\n")
			continue
		}
		describeSource(stdout, f.src, f.file)
	}
	fmt.Fprintf(stdout, "\n%d of %d verified", verified, len(files))
	if bad > 0 {
		fmt.Fprintf(stdout, ", %d DO NOT VERIFY", bad)
	}
	if missing > 0 {
		fmt.Fprintf(stdout, ", %d missing: %s", missing, fetchCommand(arg, dir))
	}
	fmt.Fprintln(stdout)
	if missing > 0 || bad > 0 {
		// A script's `repro data list X || repro data fetch X` works.
		return exitFailed
	}
	return exitOK
}

// describeSource prints where f comes from.
func describeSource(w io.Writer, s *fetch.Source, f *fetch.File) {
	if len(s.URLs) == 0 {
		fmt.Fprintf(w, "  from     no download; %s\n", s.Note)
	} else {
		how := ""
		switch s.Unpack {
		case fetch.Untar:
			how = ", member " + f.Member
		case fetch.Gunzip:
			how = ", gunzipped"
		}
		if f.Gzip {
			how += ", stored gzip-compressed"
		}
		fmt.Fprintf(w, "  from     %s%s\n", strings.Join(s.URLs, " or "), how)
	}
	sum := "sha256 " + f.SHA256
	if f.Gzip {
		sum += " of the decompressed content"
	}
	if f.Size > 0 {
		sum += ", " + runner.FormatBytes(f.Size)
	}
	fmt.Fprintf(w, "  check    %s\n", sum)
	fmt.Fprintf(w, "  licence  %s\n", s.License)
	fmt.Fprintf(w, "  cite     %s\n", s.Citation)
	if len(s.URLs) > 0 && s.Note != "" {
		fmt.Fprintf(w, "  note     %s\n", s.Note)
	}
}

func cmdDataFetch(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	var mirror *string
	sp, _, dir, code := dataSpec("fetch", stderr, args, false, func(fs *flag.FlagSet) {
		mirror = fs.String("mirror", os.Getenv(fetch.MirrorEnv), "URL whose scheme and host replace every download URL's (default $"+fetch.MirrorEnv+")")
	})
	if sp == nil {
		return code
	}
	if _, err := fetch.MirrorURL("http://h/", *mirror); err != nil {
		fmt.Fprintf(stderr, "repro data fetch: --mirror (default $%s): %v\n", fetch.MirrorEnv, err)
		return exitUsage
	}
	files, _ := dataFiles(sp)
	client := &fetch.Client{Mirror: *mirror, Progress: newFetchProgress(stderr),
		Notice: func(msg string) { fmt.Fprintf(stderr, "repro data fetch: %s\n", msg) }}
	failed, fetched := 0, 0
	var done []*fetch.Source
	for _, f := range files {
		if f.file == nil {
			if _, err := os.Stat(f.in(dir)); err != nil {
				fmt.Fprintf(stderr, "%s: missing, and no source is declared for it (the experiment's own file): put it in %s\n", f.path, dir)
				failed++
			}
			continue
		}
		if slices.Contains(done, f.src) {
			continue
		}
		done = append(done, f.src)
		ok, missing := true, false
		for i := range f.src.Files {
			st := fetch.Verify(dir, &f.src.Files[i])
			switch st.State {
			case fetch.Missing:
				missing = true
			case fetch.Mismatch:
				fmt.Fprintf(stderr, "%s: present but does not verify, left alone (remove it to fetch it again): %v\n", f.src.Files[i].Path, st.Err)
				ok = false
			}
		}
		switch {
		case !ok:
			failed++
			continue
		case !missing:
			fmt.Fprintf(stdout, "present: %s\n", paths(f.src))
			continue
		case len(f.src.URLs) == 0:
			fmt.Fprintf(stderr, "%s: missing, and it has no download; %s\n", paths(f.src), f.src.Note)
			failed++
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintf(stderr, "repro data fetch: %v\n", err)
			return exitError
		}
		if err := client.Fetch(ctx, dir, f.src); err != nil {
			if ctx.Err() != nil {
				fmt.Fprintf(stderr, "repro data fetch: interrupted; what was downloaded of %s is kept in %s and the same command resumes it\n",
					f.src.Name, filepath.Join(dir, fetch.PartialDir))
				return exitInterrupted
			}
			fmt.Fprintf(stderr, "repro data fetch: %v\n", err)
			failed++
			continue
		}
		fetched++
		fmt.Fprintf(stdout, "fetched: %s (verified)\n", paths(f.src))
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "repro data fetch: %d of the sources could not be fetched\n", failed)
		return exitFailed
	}
	fmt.Fprintf(stdout, "%s: every data file is in %s (%d fetched now)\n", sp.Name, dir, fetched)
	return exitOK
}

// paths returns s's files, comma-separated.
func paths(s *fetch.Source) string {
	var ps []string
	for _, f := range s.Files {
		ps = append(ps, f.Path)
	}
	return strings.Join(ps, ", ")
}

func cmdDataVerify(stdout, stderr io.Writer, args []string) int {
	sp, _, dir, code := dataSpec("verify", stderr, args, true, nil)
	if code != exitOK {
		return code
	}
	var files []*dataFile
	if sp != nil {
		files, _ = dataFiles(sp)
	} else {
		for _, p := range fetch.Paths() {
			f := &dataFile{path: p}
			f.src, f.file = fetch.Lookup(p)
			files = append(files, f)
		}
	}
	var verified, missing, bad int
	for _, f := range files {
		if f.file == nil {
			fmt.Fprintf(stdout, "unchecked %s: no checksum declared\n", f.path)
			continue
		}
		st := fetch.Verify(dir, f.file)
		switch st.State {
		case fetch.Verified:
			verified++
			note := ""
			if st.Copy != nil {
				note = " (known copy: " + st.Copy.Note + ")"
			}
			fmt.Fprintf(stdout, "ok        %s%s\n", f.path, note)
		case fetch.Missing:
			missing++
			if sp != nil {
				fmt.Fprintf(stdout, "missing   %s\n", f.path)
			}
		default:
			bad++
			fmt.Fprintf(stdout, "MISMATCH  %s: %v\n", f.path, st.Err)
		}
	}
	fmt.Fprintf(stdout, "%s: %d verified", dir, verified)
	if bad > 0 {
		fmt.Fprintf(stdout, ", %d DO NOT VERIFY", bad)
	}
	if missing > 0 {
		fmt.Fprintf(stdout, ", %d missing", missing)
		if sp == nil {
			fmt.Fprint(stdout, " (not checked)")
		}
	}
	fmt.Fprintln(stdout)
	if bad > 0 || sp != nil && missing > 0 {
		return exitFailed
	}
	return exitOK
}

func cmdDataMirror(stdout, stderr io.Writer, args []string) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(stderr, dataUsage)
		return exitUsage
	}
	out := args[0]
	sp, _, dir, code := dataSpec("mirror", stderr, args[1:], true, nil)
	if code != exitOK {
		return code
	}
	var srcs []*fetch.Source
	add := func(s *fetch.Source) {
		if s != nil && !slices.Contains(srcs, s) {
			srcs = append(srcs, s)
		}
	}
	if sp != nil {
		files, _ := dataFiles(sp)
		for _, f := range files {
			if f.src == nil {
				fmt.Fprintf(stderr, "%s: no source declared (the experiment's own file): not mirrored\n", f.path)
				continue
			}
			add(f.src)
		}
	} else {
		// Every declared source one of whose files is present.
		for _, p := range fetch.Paths() {
			s, f := fetch.Lookup(p)
			if fetch.Verify(dir, f).State != fetch.Missing {
				add(s)
			}
		}
	}
	failed, wrote := 0, 0
	for _, s := range srcs {
		rel, err := fetch.MirrorPath(s)
		if err == nil {
			err = writeMirror(filepath.Join(out, filepath.FromSlash(rel)), dir, s)
		}
		if err != nil {
			fmt.Fprintf(stderr, "repro data mirror: %v\n", err)
			failed++
			continue
		}
		wrote++
		fmt.Fprintf(stdout, "mirrored: %s (from %s)\n", filepath.Join(out, filepath.FromSlash(rel)), paths(s))
	}
	fmt.Fprintf(stdout, "%s: %d downloads from %s; serve it (python3 -m http.server -d %s 8080) and fetch with --mirror http://HOST:8080\n", out, wrote, dir, out)
	if failed > 0 {
		fmt.Fprintf(stderr, "repro data mirror: %d of the sources could not be mirrored\n", failed)
		return exitFailed
	}
	return exitOK
}

// writeMirror writes the download of s rebuilt from dir's files to dst,
// atomically (atomicfile.Write).
func writeMirror(dst, dir string, s *fetch.Source) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(dst, 0o644, func(w io.Writer) error { return fetch.Rebuild(w, dir, s) })
}

// dataHint prints the command that fetches an experiment's data when err
// is a missing data file.
func dataHint(stderr io.Writer, err error, arg, dataFlag string) {
	var miss *datasets.MissingFileError
	if errors.As(err, &miss) {
		fmt.Fprintf(stderr, "hint: fetch the experiment's data with: %s\n", fetchCommand(arg, datasets.DataDir(dataFlag)))
	}
}

// fetchProgress reports downloads on stderr: a bar redrawn in place on a
// terminal, plain lines otherwise (at the start and end, and every 10%
// and 5 s or 30 s between), as the run's progress does.
type fetchProgress struct {
	w        io.Writer
	tty      bool
	now      func() time.Time
	mu       sync.Mutex
	name     string
	size     int64 // -1 unknown
	done     int64
	resumed  int64
	start    time.Time
	lastDraw time.Time
	lastFrac int64
}

func newFetchProgress(w io.Writer) *fetchProgress {
	return &fetchProgress{w: w, tty: isTerminal(w), now: time.Now}
}

// Start implements fetch.Progress.
func (p *fetchProgress) Start(name string, size, done int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.name, p.size, p.done, p.resumed = name, size, done, done
	p.start = p.now()
	p.lastDraw, p.lastFrac = p.start, p.frac()
	if p.tty {
		p.draw()
		return
	}
	s := fmt.Sprintf("downloading %s", name)
	if size >= 0 {
		s += " (" + runner.FormatBytes(size) + ")"
	}
	if done > 0 {
		s += ", resuming at " + runner.FormatBytes(done)
	}
	fmt.Fprintln(p.w, s)
}

func (p *fetchProgress) frac() int64 {
	if p.size <= 0 {
		return 0
	}
	return 10 * p.done / p.size
}

// Add implements fetch.Progress.
func (p *fetchProgress) Add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	now := p.now()
	if p.tty {
		if now.Sub(p.lastDraw) >= 100*time.Millisecond {
			p.lastDraw = now
			p.draw()
		}
		return
	}
	// A line per 10% at most every 5 s, and one every 30 s: a small
	// download logs its start and end only.
	if f := p.frac(); f > p.lastFrac && f < 10 && now.Sub(p.lastDraw) >= 5*time.Second || now.Sub(p.lastDraw) >= 30*time.Second {
		p.lastFrac, p.lastDraw = f, now
		fmt.Fprintf(p.w, "%s: %s\n", p.name, p.amount())
	}
}

// Finish implements fetch.Progress.
func (p *fetchProgress) Finish(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		p.draw()
		fmt.Fprintln(p.w)
	}
	if err != nil {
		fmt.Fprintf(p.w, "%s: stopped at %s: %v\n", p.name, runner.FormatBytes(p.done), err)
		return
	}
	if !p.tty {
		fmt.Fprintf(p.w, "%s: %s in %s\n", p.name, runner.FormatBytes(p.done-p.resumed), fmtDur(p.now().Sub(p.start)))
	}
}

func (p *fetchProgress) amount() string {
	if p.size <= 0 {
		return runner.FormatBytes(p.done)
	}
	return fmt.Sprintf("%d%% (%s of %s)", 100*p.done/p.size, runner.FormatBytes(p.done), runner.FormatBytes(p.size))
}

func (p *fetchProgress) draw() {
	const width = 30
	bar := ""
	if p.size > 0 {
		fill := int(width * min(p.done, p.size) / p.size)
		bar = "[" + strings.Repeat("=", fill)
		if fill < width {
			bar += ">" + strings.Repeat(" ", width-fill-1)
		}
		bar += "] "
	}
	rate := ""
	if d := p.now().Sub(p.start).Seconds(); d > 0.5 {
		rate = ", " + runner.FormatBytes(int64(float64(p.done-p.resumed)/d)) + "/s"
	}
	fmt.Fprintf(p.w, "\r%s%s %s%s\033[K", bar, p.name, p.amount(), rate)
}
