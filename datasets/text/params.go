package text

import (
	"fmt"
	"strings"

	"github.com/repro-ml/repro/datasets/lexicon"
)

// Pipeline holds the parameters of the text pipeline. Loaders embed it
// in their parameters, changing its defaults with a defaults tag
// (`defaults:"stop_words=default"`); the choices of stop_words are none
// and lexicon.StopListNames().
type Pipeline struct {
	StopWords   string  `param:"stop_words" enum:"none|default|onix|smart|snowball" default:"none" doc:"stop words removed before n-grams are formed: none, or an embedded list (default = smart, the SMART list)"`
	MinDF       int     `param:"min_df" range:"[1, +inf)" default:"1" doc:"keep terms in at least this many documents, counted over the whole corpus (train and test)"`
	MinCount    float64 `param:"min_count" range:"[0, +inf)" default:"0" doc:"keep terms occurring at least this many times in the whole corpus"`
	NGrams      int     `param:"ngrams" range:"[1, 5]" default:"1" doc:"word n-grams up to n, joined by _ (1 = words only)"`
	Weighting   string  `param:"weighting" enum:"log|binary|count" default:"log" doc:"feature value: log = log(1+count), binary = presence, count = raw count"`
	Vocabulary  string  `param:"vocabulary" enum:"all|lexicon:bing|lexicon:afinn" default:"all" doc:"restrict the vocabulary to the words of an embedded sentiment lexicon"`
	MaxFeatures int     `param:"max_features" range:"[0, +inf)" default:"0" doc:"if positive, keep only the terms in the most documents (ties alphabetical)"`
}

// Options returns the pipeline's Options.
func (p Pipeline) Options() (Options, error) {
	o := Options{
		NGrams:      p.NGrams,
		MinDF:       p.MinDF,
		MinCount:    p.MinCount,
		MaxFeatures: p.MaxFeatures,
		Weighting:   Weighting(p.Weighting),
	}
	if sw := p.StopWords; sw != "none" {
		s, err := lexicon.StopWords(sw)
		if err != nil {
			return o, err
		}
		o.StopWords = s
	}
	if voc := p.Vocabulary; voc != "all" {
		name, ok := strings.CutPrefix(voc, "lexicon:")
		if !ok {
			return o, fmt.Errorf("vocabulary %q: want all or lexicon:<name>", voc)
		}
		lex, err := lexicon.Load(name)
		if err != nil {
			return o, err
		}
		o.Keep = func(t string) bool { _, ok := lex[t]; return ok }
	}
	return o, nil
}

// Describe summarises the pipeline for a dataset's notes.
func (p Pipeline) Describe() string {
	return fmt.Sprintf("text pipeline: tokens [a-z]+ (ASCII case-folded), stop words %s, n-grams up to %d, min_df %d over the whole corpus (train and test), min_count %v, vocabulary %s, max_features %d, weighting %s",
		p.StopWords, p.NGrams, p.MinDF, p.MinCount, p.Vocabulary, p.MaxFeatures, p.Weighting)
}
