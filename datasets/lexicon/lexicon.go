// Package lexicon gives access to word lists embedded in repro: the AFINN-165
// and Bing opinion lexicons and the SMART, Snowball and Onix stop-word lists.
//
// Words are lower case; multi-word entries have their words joined by "_",
// the way the text pipeline names n-gram features. See README.md beside this
// file for provenance and licences.
package lexicon

import (
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

var (
	//go:embed afinn165.tsv
	afinnTSV string
	//go:embed bing_lexicon.tsv
	bingTSV string
	//go:embed stop_words.tsv
	stopTSV string
)

// Names of the lexicons Load accepts.
const (
	Bing  = "bing"  // Hu & Liu's opinion lexicon: polarity +1 or −1
	AFINN = "afinn" // AFINN-165: integer valence −5…+5
)

// The classes a sentiment lexicon's words fall in (see Classes).
const (
	Positive = "positive"
	Negative = "negative"
)

// Names returns the sentiment lexicons Load accepts.
func Names() []string { return []string{AFINN, Bing} }

// StopListNames returns the stop-word lists StopWords accepts.
func StopListNames() []string { return []string{"default", "onix", "smart", "snowball"} }

var (
	once    sync.Once
	parsed  map[string][]entry // lexicon name → entries in file order
	stops   map[string]map[string]bool
	loadErr error
)

type entry struct {
	word  string
	score float64
}

func parse() {
	parsed = map[string][]entry{}
	stops = map[string]map[string]bool{}
	err := eachRow(afinnTSV, func(word, v string) error {
		s, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("afinn165.tsv: word %q: %w", word, err)
		}
		parsed[AFINN] = append(parsed[AFINN], entry{word, s})
		return nil
	})
	if err == nil {
		err = eachRow(bingTSV, func(word, v string) error {
			switch v {
			case Positive:
				parsed[Bing] = append(parsed[Bing], entry{word, 1})
			case Negative:
				parsed[Bing] = append(parsed[Bing], entry{word, -1})
			default:
				return fmt.Errorf("bing_lexicon.tsv: word %q: sentiment %q", word, v)
			}
			return nil
		})
	}
	if err == nil {
		err = eachRow(stopTSV, func(word, v string) error {
			name := strings.ToLower(v)
			if stops[name] == nil {
				stops[name] = map[string]bool{}
			}
			stops[name][word] = true
			return nil
		})
	}
	loadErr = err
}

// eachRow calls fn with the two columns of every row after the header.
func eachRow(tsv string, fn func(word, v string) error) error {
	lines := strings.Split(strings.TrimRight(tsv, "\n"), "\n")
	for n, line := range lines[1:] {
		line = strings.TrimRight(line, "\r")
		word, v, ok := strings.Cut(line, "\t")
		if !ok {
			return fmt.Errorf("line %d: want two tab-separated columns, got %q", n+2, line)
		}
		word = strings.Join(strings.Fields(strings.ToLower(word)), "_")
		if err := fn(word, v); err != nil {
			return err
		}
	}
	return nil
}

// Load returns the polarity of every word of the named sentiment lexicon
// ("bing": +1 positive, −1 negative; "afinn": the valence −5…+5). A word the
// Bing lexicon lists as both positive and negative has polarity 0.
func Load(name string) (map[string]float64, error) {
	once.Do(parse)
	if loadErr != nil {
		return nil, fmt.Errorf("lexicon: %w", loadErr)
	}
	es, ok := parsed[name]
	if !ok {
		return nil, fmt.Errorf("lexicon: unknown lexicon %q; known: %v", name, Names())
	}
	out := make(map[string]float64, len(es))
	for _, e := range es {
		out[e.word] += e.score
	}
	return out, nil
}

// Classes splits the named sentiment lexicon into a "positive" and a
// "negative" class: words with score ≥ minScore and ≤ −minScore (minScore
// > 0; use 1 for the Bing lexicon, e.g. 3 for strongly charged AFINN words).
// Each class is sorted. A word listed with both polarities is in both.
func Classes(name string, minScore float64) (map[string][]string, error) {
	once.Do(parse)
	if loadErr != nil {
		return nil, fmt.Errorf("lexicon: %w", loadErr)
	}
	es, ok := parsed[name]
	if !ok {
		return nil, fmt.Errorf("lexicon: unknown lexicon %q; known: %v", name, Names())
	}
	if !(minScore > 0) {
		return nil, fmt.Errorf("lexicon: minimum score %v must be positive", minScore)
	}
	seen := map[string]map[string]bool{Positive: {}, Negative: {}}
	for _, e := range es {
		switch {
		case e.score >= minScore:
			seen[Positive][e.word] = true
		case e.score <= -minScore:
			seen[Negative][e.word] = true
		}
	}
	out := map[string][]string{}
	for c, ws := range seen {
		list := make([]string, 0, len(ws))
		for w := range ws {
			list = append(list, w)
		}
		sort.Strings(list)
		out[c] = list
	}
	return out, nil
}

// StopWords returns the named stop-word list: "smart" (570 distinct words, the SMART
// system's list, also the default stop list of McCallum's Rainbow toolkit),
// "snowball" (174), "onix" (398), or "default" (= smart). Entries with an
// apostrophe ("a's") are kept as listed; a tokenizer of alphabetic runs
// never produces them.
func StopWords(name string) (map[string]bool, error) {
	once.Do(parse)
	if loadErr != nil {
		return nil, fmt.Errorf("lexicon: %w", loadErr)
	}
	key := strings.ToLower(name)
	if key == "default" {
		key = "smart"
	}
	s, ok := stops[key]
	if !ok {
		return nil, fmt.Errorf("lexicon: unknown stop-word list %q; known: %v", name, StopListNames())
	}
	out := make(map[string]bool, len(s))
	for w := range s {
		out[w] = true
	}
	return out, nil
}
