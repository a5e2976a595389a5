package runner

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/spec"
)

// A loader's preprocessing that depends on the rows it read (a csv table's
// imputed means and one-hot category sets, datasets.Prep) is refitted in
// each trial on the trial's training rows (datasets.Refit, in Sets), so
// that no test row informs the features. A transform run on the whole
// dataset after loading works on the values as loaded: the record is
// dropped and the report says the preprocessing saw every row.

// prepNote says in d's notes what the loader's preprocessing prep is
// fitted on: each trial's training rows, or every row when a transform of
// ds runs on the whole dataset after loading (its output keeps no record:
// d.Prep is nil then).
func prepNote(d *datasets.Dataset, prep *datasets.Prep, ds *spec.DatasetSpec) {
	if prep.Describe("") == "" {
		return
	}
	for _, ts := range ds.Transforms {
		if !ts.PerTrial() {
			d.Prep = nil
			d.Notes = append(d.Notes, fmt.Sprintf("Transform %s runs on the whole dataset as loaded, so the loader's preprocessing (imputed means, one-hot category sets) is fitted on every row, test rows included, not refitted per trial.", ts.Name))
			return
		}
	}
	d.Notes = append(d.Notes, prep.Describe("the training rows"))
}

// refitPrep returns the trial's training and test sets with the loader's
// preprocessing refitted on the training rows (datasets.Refit), and the
// identity of the training set's content for the transforms fitted on it
// after: the dataset's id and the rows, or "" when nothing was refitted
// (the transforms then fit on the rows of Data).
func (t *TrialRun) refitPrep(trainSet, testSet *datasets.Dataset, rows []int) (*datasets.Dataset, *datasets.Dataset, string, error) {
	if t.Data.Prep == nil {
		return trainSet, testSet, "", nil
	}
	tr, te, err := datasets.Refit(trainSet, testSet)
	if err != nil {
		return nil, nil, "", err
	}
	if tr == trainSet {
		return trainSet, testSet, "", nil
	}
	h := sha256.New()
	h.Write([]byte(t.DataID() + "/prep\n"))
	var b [8]byte
	for _, r := range rows {
		binary.LittleEndian.PutUint64(b[:], uint64(r))
		h.Write(b[:])
	}
	return tr, te, hex.EncodeToString(h.Sum(nil)[:16]), nil
}
