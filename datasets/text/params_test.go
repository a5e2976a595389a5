package text

import (
	"reflect"
	"testing"

	"github.com/repro-ml/repro/datasets/lexicon"
	"github.com/repro-ml/repro/param"
)

// TestPipelineChoices: the choices of stop_words and weighting, literals
// in Pipeline's tags, are none and the embedded stop lists, and the
// Weighting constants.
func TestPipelineChoices(t *testing.T) {
	ds := param.Of[Pipeline]().Params
	sw, _ := param.Find(ds, "stop_words")
	if want := append([]string{"none"}, lexicon.StopListNames()...); !reflect.DeepEqual(sw.Choices, want) {
		t.Errorf("stop_words choices %v, want %v", sw.Choices, want)
	}
	w, _ := param.Find(ds, "weighting")
	if want := []string{string(Log), string(Binary), string(Count)}; !reflect.DeepEqual(w.Choices, want) || w.Default != string(Log) {
		t.Errorf("weighting choices %v default %v, want %v default log", w.Choices, w.Default, want)
	}
}
