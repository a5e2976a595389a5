package lexicon

import (
	"fmt"
	"testing"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		lex     string
		n       int // distinct words
		word    string
		score   float64
		wantErr bool
	}{
		{lex: "bing", n: 6783, word: "good", score: 1},
		{lex: "bing", n: 6783, word: "abnormal", score: -1},
		{lex: "bing", n: 6783, word: "envious", score: 0}, // listed both ways
		{lex: "afinn", n: 3382, word: "abandon", score: -2},
		{lex: "afinn", n: 3382, word: "does_not_work", score: -3},
		{lex: "afinn", n: 3382, word: "outstanding", score: 5},
		{lex: "sentiwordnet", wantErr: true},
	}
	for _, tt := range tests {
		m, err := Load(tt.lex)
		if tt.wantErr {
			if err == nil {
				t.Errorf("Load(%q): no error", tt.lex)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Load(%q): %v", tt.lex, err)
		}
		if len(m) != tt.n {
			t.Errorf("Load(%q): %d words, want %d", tt.lex, len(m), tt.n)
		}
		if s, ok := m[tt.word]; !ok || s != tt.score {
			t.Errorf("Load(%q)[%q] = %v, %v; want %v", tt.lex, tt.word, s, ok, tt.score)
		}
	}
}

func TestClasses(t *testing.T) {
	tests := []struct {
		lex      string
		min      float64
		pos, neg int
	}{
		{"bing", 1, 2005, 4781}, // counts of the file (README); 3 words in both
		{"afinn", 1, 1176, 2204},
		{"afinn", 4, 70, 63},
	}
	for _, tt := range tests {
		c, err := Classes(tt.lex, tt.min)
		if err != nil {
			t.Fatal(err)
		}
		// Every word must satisfy the threshold, and the counts must equal a
		// direct count over the raw entries.
		wantPos, wantNeg := map[string]bool{}, map[string]bool{}
		for _, e := range parsed[tt.lex] {
			if e.score >= tt.min {
				wantPos[e.word] = true
			} else if e.score <= -tt.min {
				wantNeg[e.word] = true
			}
		}
		if len(c[Positive]) != tt.pos || len(c[Negative]) != tt.neg || len(c[Positive]) != len(wantPos) || len(c[Negative]) != len(wantNeg) {
			t.Errorf("Classes(%q, %v): %d/%d words, want %d/%d", tt.lex, tt.min, len(c[Positive]), len(c[Negative]), len(wantPos), len(wantNeg))
		}
		for _, w := range c[Positive] {
			if !wantPos[w] {
				t.Errorf("Classes(%q, %v): %q not positive enough", tt.lex, tt.min, w)
			}
		}
	}
	if _, err := Classes("bing", 0); err == nil {
		t.Error("Classes with minScore 0: no error")
	}
}

func TestStopWords(t *testing.T) {
	tests := []struct {
		name string
		n    int // distinct words (the file lists a few twice)
		in   string
		out  string
	}{
		{"default", 570, "the", "computer"},
		{"smart", 570, "whereafter", "space"},
		{"snowball", 174, "ourselves", "whereafter"},
		{"onix", 398, "the", "bayes"},
	}
	for _, tt := range tests {
		s, err := StopWords(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != tt.n || !s[tt.in] || s[tt.out] {
			t.Errorf("StopWords(%q): %d words, %q in: %v, %q in: %v", tt.name, len(s), tt.in, s[tt.in], tt.out, s[tt.out])
		}
	}
	if _, err := StopWords("nltk"); err == nil {
		t.Error("StopWords(nltk): no error")
	}
}

func ExampleLoad() {
	bing, _ := Load("bing")
	afinn, _ := Load("afinn")
	fmt.Println(bing["excellent"], bing["awful"], afinn["excellent"], afinn["can't_stand"])
	// Output: 1 -1 3 -3
}

func ExampleClasses() {
	c, _ := Classes("afinn", 5)
	fmt.Println(c[Positive], len(c[Negative]))
	// Output: [breathtaking hurrah outstanding superb thrilled] 16
}

func ExampleStopWords() {
	s, _ := StopWords("default")
	fmt.Println(len(s), s["the"], s["shuttle"])
	// Output: 570 true false
}
