package fetch

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
)

// MirrorPath returns where a mirror serves src: the slash-separated path
// of its first URL, which Client.Mirror puts after the mirror's own.
func MirrorPath(src *Source) (string, error) {
	if len(src.URLs) == 0 {
		return "", fmt.Errorf("%s: no download declared (%s)", src.Name, src.Note)
	}
	u, err := url.Parse(src.URLs[0])
	if err != nil {
		return "", fmt.Errorf("%s: %w", src.Name, err)
	}
	p := path.Clean("/" + u.Path)
	if p == "/" {
		return "", fmt.Errorf("%s: URL %s has no path", src.Name, src.URLs[0])
	}
	return p[1:], nil
}

// Rebuild writes to w the download of src as its URL serves it, made
// from src's files in the data directory dir: the file itself (its
// content, where it is stored gzip-compressed), or a tar.gz of the
// members. A Fetch from a mirror serving it places the same files. It
// fails where that cannot be: a file missing or not verifying, a known
// copy instead of the original, an archive whose own checksum is
// declared (a rebuilt archive is not byte-identical).
func Rebuild(w io.Writer, dir string, src *Source) error {
	if len(src.URLs) == 0 {
		return fmt.Errorf("%s: no download declared (%s)", src.Name, src.Note)
	}
	for i := range src.Files {
		f := &src.Files[i]
		switch st := Verify(dir, f); {
		case st.State == Missing:
			return fmt.Errorf("%s: %s is missing from %s", src.Name, f.Path, dir)
		case st.State != Verified:
			return fmt.Errorf("%s: %v", src.Name, st.Err)
		case st.Copy != nil:
			return fmt.Errorf("%s: %s is a known copy (%s), not the original: a fetch would refuse it", src.Name, f.Path, st.Copy.Note)
		}
	}
	if src.Unpack != Keep && src.SHA256 != "" {
		return fmt.Errorf("%s: the download's own checksum is declared, and an archive rebuilt from its files would not have it", src.Name)
	}
	content := func(f *File, w io.Writer) error {
		in, err := os.Open(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			return err
		}
		defer in.Close()
		r := io.Reader(in)
		if f.Gzip {
			zr, err := gzip.NewReader(in)
			if err != nil {
				return fmt.Errorf("%s: %w", f.Path, err)
			}
			r = zr
		}
		_, err = io.Copy(w, r)
		return err
	}
	switch src.Unpack {
	case Keep:
		return content(&src.Files[0], w)
	case Gunzip:
		zw := gzip.NewWriter(w)
		if err := content(&src.Files[0], zw); err != nil {
			return err
		}
		return zw.Close()
	case Untar:
		zw := gzip.NewWriter(w)
		tw := tar.NewWriter(zw)
		for i := range src.Files {
			f := &src.Files[i]
			// Verified: its content has the declared size.
			if err := tw.WriteHeader(&tar.Header{Name: f.Member, Mode: 0o644, Size: f.Size, Typeflag: tar.TypeReg}); err != nil {
				return err
			}
			if err := content(f, tw); err != nil {
				return err
			}
		}
		if err := tw.Close(); err != nil {
			return err
		}
		return zw.Close()
	}
	return errors.New(src.Name + ": unknown unpack step " + src.Unpack.String())
}
