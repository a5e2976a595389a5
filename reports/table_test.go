package reports

import (
	"bytes"
	"testing"
)

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	err := writeTable(&b, []string{"series_name", "20"}, [][]string{
		{"a | b", "**1.00 ± 0.10**"},
		{"c\nd", ""},
		{"c\nd", ""},
	}, "lr")
	if err != nil {
		t.Fatal(err)
	}
	want := "| series_name |              20 |\n" +
		"|:------------|----------------:|\n" +
		"| a \\| b      | **1.00 ± 0.10** |\n" +
		"| c d         |                 |\n" +
		"| c d         |                 |\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
