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

// TestWriteTableLayout pins the layout tablewriter's Markdown renderer
// gave these tables (checked against it on 20,000 random tables before
// it was dropped): cells trimmed, display widths (wide characters two
// columns, combining marks none, ambiguous ones one), missing cells
// blank, an empty header cell a column of width one.
func TestWriteTableLayout(t *testing.T) {
	cases := []struct {
		name   string
		header []string
		rows   [][]string
		aligns string
		want   string
	}{
		{"widths", []string{"a", "long header", "n"}, [][]string{{"x", "", "1"}, {"élan × ≥ 東京", "p|q", "12345"}, {"b"}}, "lrr",
			"| a             | long header |     n |\n" +
				"|:--------------|------------:|------:|\n" +
				"| x             |             |     1 |\n" +
				"| élan × ≥ 東京 |        p\\|q | 12345 |\n" +
				"| b             |             |       |\n"},
		{"trimmed", []string{" a ", "h  b", "n"}, [][]string{{"  x ", "e\u0301", "1"}, {"😀", "red", "  "}, {"ｆｕｌｌ", "a  b", "x"}}, "lrr",
			"| a        | h  b | n |\n" +
				"|:---------|-----:|--:|\n" +
				"| x        |    e\u0301 | 1 |\n" +
				"| 😀       |  red |   |\n" +
				"| ｆｕｌｌ | a  b | x |\n"},
		{"empty header cell", []string{"", "c"}, nil, "rl", "|   | c |\n|--:|:--|\n"},
		{"no header", nil, [][]string{{"x"}}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeTable(&b, c.header, c.rows, c.aligns); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}
