package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DataDirEnv is the environment variable naming the data directory.
const DataDirEnv = "REPRO_DATA"

// DataDir resolves the data directory: flag if non-empty, else $REPRO_DATA,
// else the user cache directory's "repro/data".
func DataDir(flag string) string {
	if flag != "" {
		return flag
	}
	if v := os.Getenv(DataDirEnv); v != "" {
		return v
	}
	if c, err := os.UserCacheDir(); err == nil {
		return filepath.Join(c, "repro", "data")
	}
	return filepath.Join(".", "data")
}

// MissingFileError reports a data file that is not in the data directory.
type MissingFileError struct {
	Path   string // the full path looked for
	Source string // where the file comes from, for the user to fetch it
}

func (e *MissingFileError) Error() string {
	s := fmt.Sprintf("data file %s not found", e.Path)
	if e.Source != "" {
		s += "; it comes from " + e.Source
	}
	return s + fmt.Sprintf(" (set the data directory with --data or $%s)", DataDirEnv)
}

// Path resolves name against env.DataDir (absolute names are kept) and
// checks the file exists. source says where the file comes from; it goes into
// the error when the file is missing.
func (env Env) Path(name, source string) (string, error) {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(env.DataDir, name)
	}
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", &MissingFileError{Path: p, Source: source}
		}
		return "", fmt.Errorf("data file %s: %w", p, err)
	}
	return p, nil
}
