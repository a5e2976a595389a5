package results

import (
	"encoding/json"
	"math"
	"testing"
)

func TestMetricsJSON(t *testing.T) {
	tests := []struct {
		name string
		m    Metrics
		json string
	}{
		{"finite, sorted keys", Metrics{"b": 1.5, "a": -0.25}, `{"a":-0.25,"b":1.5}`},
		{"non-finite as strings", Metrics{"auc": math.NaN(), "mse": math.Inf(1), "x": math.Inf(-1)}, `{"auc":"NaN","mse":"+Inf","x":"-Inf"}`},
		{"empty", Metrics{}, `{}`},
		{"nil", nil, `null`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.m)
			if err != nil || string(b) != tc.json {
				t.Fatalf("Marshal = %s, %v; want %s", b, err, tc.json)
			}
			var back Metrics
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if len(back) != len(tc.m) || (tc.m == nil) != (back == nil) {
				t.Fatalf("round trip %v, want %v", back, tc.m)
			}
			for k, v := range tc.m {
				if w := back[k]; !(w == v || math.IsNaN(w) && math.IsNaN(v)) {
					t.Errorf("%s: round trip %v, want %v", k, w, v)
				}
			}
		})
	}
	var m Metrics
	if err := json.Unmarshal([]byte(`{"b":"Inf"}`), &m); err != nil || !math.IsInf(m["b"], 1) {
		t.Errorf("\"Inf\" read as %v, %v", m, err)
	}
	// repro never writes null, but other writers make NaN a null: it
	// reads back as NaN (docs/spec.md), in metrics and bootstrap samples.
	if err := json.Unmarshal([]byte(`{"a":null,"b":2}`), &m); err != nil || !math.IsNaN(m["a"]) || m["b"] != 2 {
		t.Errorf("null read as %v, %v; want NaN", m, err)
	}
	var s Samples
	if err := json.Unmarshal([]byte(`{"a":[1,null]}`), &s); err != nil || len(s["a"]) != 2 || !math.IsNaN(s["a"][1]) {
		t.Errorf("null sample read as %v, %v; want NaN", s, err)
	}
	for _, bad := range []string{`{"a":"nan?"}`, `{"a":true}`, `[1]`} {
		if err := json.Unmarshal([]byte(bad), &m); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
