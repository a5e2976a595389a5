package graph

import (
	"reflect"
	"testing"

	"github.com/repro-ml/repro/datasets/lexicon"
	"github.com/repro-ml/repro/param"
)

// TestLexiconChoices: the lexicon parameters' choices, literals in their
// tags, are the embedded lexicons, and lexicon-classes' default classes
// are lexicon.Positive and lexicon.Negative.
func TestLexiconChoices(t *testing.T) {
	for _, ds := range [][]param.Decl{param.Of[classesParams]().Params, param.Of[lexcorrParams]().Params} {
		d, _ := param.Find(ds, "lexicon")
		if !reflect.DeepEqual(d.Choices, lexicon.Names()) || d.Default != lexicon.Bing {
			t.Errorf("lexicon: choices %v default %v; want %v default %v", d.Choices, d.Default, lexicon.Names(), lexicon.Bing)
		}
	}
	d, _ := param.Find(param.Of[classesParams]().Params, "classes")
	if want := []string{lexicon.Positive, lexicon.Negative}; !reflect.DeepEqual(d.Default, want) {
		t.Errorf("classes default %v, want %v", d.Default, want)
	}
}
