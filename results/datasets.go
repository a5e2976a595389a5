package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DatasetInfo describes a loaded dataset in DIR/datasets.json, for reports.
type DatasetInfo struct {
	Plugin  string             `json:"plugin"`
	Rows    int                `json:"rows"`
	Cols    int                `json:"cols"`
	Classes []string           `json:"classes,omitempty"`
	Stats   map[string]float64 `json:"stats,omitempty"`
	Notes   []string           `json:"notes,omitempty"`
}

// DatasetsFile is the name of the dataset summary file in an output directory.
const DatasetsFile = "datasets.json"

// ReadDatasetInfo reads dir/datasets.json; a missing file is (nil, nil).
func ReadDatasetInfo(dir string) (map[string]DatasetInfo, error) {
	b, err := os.ReadFile(filepath.Join(dir, DatasetsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m map[string]DatasetInfo
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s is damaged: %w", filepath.Join(dir, DatasetsFile), err)
	}
	return m, nil
}
