package text

import (
	"fmt"
	"strings"

	"github.com/repro-ml/repro/datasets/lexicon"
	"github.com/repro-ml/repro/param"
)

// PipelineParams declares the parameters of the text pipeline with the given
// defaults for stop_words, min_df and ngrams. Loaders append them to their
// own parameters and read them back with OptionsFrom.
func PipelineParams(stopWords string, minDF, ngrams int) []param.Decl {
	return []param.Decl{
		{Name: "stop_words", Type: param.Enum, Default: stopWords, Choices: append([]string{"none"}, lexicon.StopListNames()...),
			Doc: "stop words removed before n-grams are formed: none, or an embedded list (default = smart, the SMART list)"},
		{Name: "min_df", Type: param.Int, Default: minDF, Min: param.Bound(1),
			Doc: "keep terms in at least this many documents, counted over the whole corpus (train and test)"},
		{Name: "min_count", Type: param.Float, Default: 0.0, Min: param.Bound(0),
			Doc: "keep terms occurring at least this many times in the whole corpus"},
		{Name: "ngrams", Type: param.Int, Default: ngrams, Min: param.Bound(1), Max: param.Bound(5),
			Doc: "word n-grams up to n, joined by _ (1 = words only)"},
		{Name: "weighting", Type: param.Enum, Default: string(Log), Choices: []string{string(Log), string(Binary), string(Count)},
			Doc: "feature value: log = log(1+count), binary = presence, count = raw count"},
		{Name: "vocabulary", Type: param.Enum, Default: "all", Choices: []string{"all", "lexicon:bing", "lexicon:afinn"},
			Doc: "restrict the vocabulary to the words of an embedded sentiment lexicon"},
		{Name: "max_features", Type: param.Int, Default: 0, Min: param.Bound(0),
			Doc: "if positive, keep only the terms in the most documents (ties alphabetical)"},
	}
}

// OptionsFrom reads the parameters declared by PipelineParams.
func OptionsFrom(p param.Values) (Options, error) {
	o := Options{
		NGrams:      p.Int("ngrams"),
		MinDF:       p.Int("min_df"),
		MinCount:    p.Float("min_count"),
		MaxFeatures: p.Int("max_features"),
		Weighting:   Weighting(p.String("weighting")),
	}
	if sw := p.String("stop_words"); sw != "none" {
		s, err := lexicon.StopWords(sw)
		if err != nil {
			return o, err
		}
		o.StopWords = s
	}
	if voc := p.String("vocabulary"); voc != "all" {
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

// Describe summarises the pipeline parameters p (as PipelineParams
// declares them) for a dataset's notes.
func Describe(p param.Values) string {
	return fmt.Sprintf("text pipeline: tokens [a-z]+ (ASCII case-folded), stop words %s, n-grams up to %d, min_df %d over the whole corpus (train and test), min_count %v, vocabulary %s, max_features %d, weighting %s",
		p.String("stop_words"), p.Int("ngrams"), p.Int("min_df"), p.Float("min_count"), p.String("vocabulary"), p.Int("max_features"), p.String("weighting"))
}
