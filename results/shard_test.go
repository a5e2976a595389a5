package results_test

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/repro-ml/repro/results"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want results.Shard
		ok   bool
	}{
		{"0/4", results.Shard{I: 0, N: 4}, true},
		{"3/4", results.Shard{I: 3, N: 4}, true},
		{"0/1", results.Shard{I: 0, N: 1}, true},
		{"4/4", results.Shard{}, false},
		{"-1/4", results.Shard{}, false},
		{"1/0", results.Shard{}, false},
		{"1", results.Shard{}, false},
		{"a/b", results.Shard{}, false},
		{"", results.Shard{}, false},
	}
	for _, tt := range tests {
		got, err := results.ParseShard(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if s := (results.Shard{I: 2, N: 8}); s.File() != filepath.Join("results", "shard-2-of-8.jsonl") || s.String() != "2/8" {
		t.Errorf("Shard{2, 8}: file %s, string %s", s.File(), s.String())
	}
}

func TestSamplesJSON(t *testing.T) {
	s := results.Samples{"auc": {0.5, math.NaN(), 1}, "accuracy": {80, 82.5}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"accuracy":[80,82.5],"auc":[0.5,"NaN",1]}`; string(b) != want {
		t.Errorf("JSON %s; want %s", b, want)
	}
	var back results.Samples
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back["accuracy"][1] != 82.5 || !math.IsNaN(back["auc"][1]) {
		t.Errorf("round trip: %v", back)
	}
	if err := json.Unmarshal([]byte(`{"auc":[0.5,"bad"]}`), &back); err == nil {
		t.Error("a string resample value: no error")
	}
}
