package runner

import (
	"math"
	"testing"
)

func TestParseMemLimit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		err  bool
	}{
		{in: "8GB", want: 8e9},
		{in: "1.5 GiB", want: 3 << 29},
		{in: "500mb", want: 500e6},
		{in: "4096", want: 4096},
		{in: "2k", want: 2000},
		{in: " off ", want: NoMemLimit},
		{in: "None", want: NoMemLimit},
		{in: "", err: true},
		{in: "0GB", err: true},
		{in: "-1GB", err: true},
		{in: "8 furlongs", err: true},
		{in: "NaN", err: true},
		{in: "1e30", err: true},
	} {
		got, err := ParseMemLimit(c.in)
		if (err != nil) != c.err || err == nil && got != c.want {
			t.Errorf("ParseMemLimit(%q) = %d, %v; want %d, error %t", c.in, got, err, c.want, c.err)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for b, want := range map[int64]string{
		0: "0 B", 999: "999 B", 1000: "1 KB", 9_663_676_416: "9.66 GB", 512e6: "512 MB", math.MaxInt64: "9.22 EB",
	} {
		if got := FormatBytes(b); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", b, got, want)
		}
	}
}

func TestDefaultMemLimit(t *testing.T) {
	if l := DefaultMemLimit(); l <= 0 || l > machineMemory() {
		t.Errorf("DefaultMemLimit() = %d; machine memory %d", l, machineMemory())
	}
}
