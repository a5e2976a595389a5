package text

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/param"
)

// TestProcessedACLAnyDomain checks that a domain beyond Blitzer's four
// loads under its own name from the same layout, that an unknown domain
// gives one error naming the directories there, and that a domain which
// is not one directory name is refused before anything loads.
func TestProcessedACLAnyDomain(t *testing.T) {
	dir := t.TempDir()
	for _, dom := range []string{"kitchen", "toys"} {
		kd := filepath.Join(dir, "amazon", "processed_acl", dom)
		if err := os.MkdirAll(kd, 0o755); err != nil {
			t.Fatal(err)
		}
		writeGz(t, filepath.Join(kd, "positive.review.gz"), "great:1 don't_break:1 2nd:1 #label#:positive\n")
		writeGz(t, filepath.Join(kd, "negative.review.gz"), "broken:1 don't:1 #label#:negative\n")
	}
	d := load(t, "processed-acl", dir, param.Values{"domain": "toys"})
	if d.Name != "processed-acl-toys" || d.Rows() != 2 {
		t.Errorf("toys: name %q, %d rows", d.Name, d.Rows())
	}
	// The note describes the terms kept, which are not [a-z]+.
	notes := strings.Join(d.Notes, "\n")
	if strings.Contains(notes, "[a-z]+") || !strings.Contains(notes, "apostrophes, digits") {
		t.Errorf("notes misdescribe the terms:\n%s", notes)
	}
	word := regexp.MustCompile(`^[a-z]+$`)
	odd := 0
	for _, f := range d.Features {
		if !word.MatchString(f) {
			odd++
		}
	}
	if odd == 0 {
		t.Errorf("vocabulary %q: expected terms with apostrophes and digits", d.Features)
	}

	l, _ := datasets.Lookup("processed-acl")
	p := param.Defaults(l.Params)
	p["domain"] = "garden"
	_, err := l.Load(context.Background(), datasets.Env{DataDir: dir}, p)
	if err == nil {
		t.Fatal("unknown domain: no error")
	}
	msg := err.Error()
	for _, want := range []string{"processed-acl garden", filepath.Join("processed_acl", "garden") + " not found", "holds kitchen, toys"} {
		if !strings.Contains(msg, want) {
			t.Errorf("unknown domain: error %q, want it to contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "want one of") || strings.Count(msg, "garden") > 2 {
		t.Errorf("unknown domain: error %q says more than one thing", msg)
	}

	for _, bad := range []string{"", "..", "kitchen/../toys", `a\b`} {
		p["domain"] = bad
		err := l.Validate(p)
		var inv *param.InvalidError
		if err == nil || !errors.As(err, &inv) || inv.Param != "domain" {
			t.Errorf("domain %q: Validate = %v, want an invalid domain", bad, err)
		}
	}
	p["domain"] = "toys"
	if err := l.Validate(p); err != nil {
		t.Errorf("domain toys: Validate = %v", err)
	}
}

// TestProcessedACLRefusals checks each file the loader refuses (issue 31)
// with its exact error: a term that is not UTF-8, a count strconv reads
// but a data file does not mean, a missing negative file, an empty one.
func TestProcessedACLRefusals(t *testing.T) {
	const pos = "great:1 #label#:positive\n"
	for _, tc := range []struct {
		name, neg string // neg "-": no negative.review file
		want      string // after the domain directory
	}{
		{"latin1 term", "caf\xe9:1 #label#:negative\n",
			`negative.review:1: term "caf\xe9" is not valid UTF-8 (a damaged file, or one in another encoding: convert it to UTF-8)`},
		{"hexadecimal count", "bad:0x1p3 #label#:negative\n",
			`negative.review:1: field "bad:0x1p3": count "0x1p3" is a hexadecimal number; a data file holds decimal numbers (want a finite non-negative number)`},
		{"underscore count", "bad:1_000 #label#:negative\n",
			`negative.review:1: field "bad:1_000": count "1_000" is not a number (digits separated by _; write 1000) (want a finite non-negative number)`},
		{"negative count", "bad:-1 #label#:negative\n",
			`negative.review:1: field "bad:-1": count "-1" is negative (want a finite non-negative number)`},
		{"empty negative file", "",
			`negative.review(.gz): no reviews`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			kd := filepath.Join(dir, "amazon", "processed_acl", "kitchen")
			os.MkdirAll(kd, 0o755)
			os.WriteFile(filepath.Join(kd, "positive.review"), []byte(pos), 0o644)
			if tc.neg != "-" {
				os.WriteFile(filepath.Join(kd, "negative.review"), []byte(tc.neg), 0o644)
			}
			_, err := loadWith("processed-acl", dir, param.Values{"domain": "kitchen"})
			want := "processed-acl kitchen: " + filepath.Join(kd, tc.want)
			if err == nil || err.Error() != want {
				t.Errorf("error %v\nwant  %s", err, want)
			}
		})
	}
}

// TestProcessedACLMissingFile: a missing negative.review is a
// *datasets.MissingFileError (which validate --data reports as an error,
// as run does), naming the file and where it comes from.
func TestProcessedACLMissingFile(t *testing.T) {
	dir := t.TempDir()
	kd := filepath.Join(dir, "amazon", "processed_acl", "kitchen")
	os.MkdirAll(kd, 0o755)
	os.WriteFile(filepath.Join(kd, "positive.review"), []byte("great:1 #label#:positive\n"), 0o644)
	_, err := loadWith("processed-acl", dir, param.Values{"domain": "kitchen"})
	var miss *datasets.MissingFileError
	if !errors.As(err, &miss) || miss.Path != filepath.Join(kd, "negative.review") || miss.Source != aclSource {
		t.Errorf("error %v; want a MissingFileError for %s", err, filepath.Join(kd, "negative.review"))
	}
}
