package text

import (
	"path"

	"github.com/repro-ml/repro/datasets/fetch"
)

// Where the text corpora come from (`repro data`). The checksums of the
// 20 Newsgroups and IMDb archives are the published ones (scikit-learn's
// fetch_20newsgroups, TensorFlow Datasets); those of the sentiment reviews
// are computed from ../shared/data/paper's copies (gzip of the GitHub
// files below, nothing else changed).

const (
	newsSHA256 = "8f1b2514ca22a5ade8fbb9cfa5727df95fa587f4c87b786e15c759fa66d95610"
	imdbSHA256 = "c40f74a18d3b61f90feba1e17730e0d38e8b97c05fde7008942e91923d1658fe"
	// aclRepo holds Blitzer's processed_acl reviews at a fixed commit.
	aclRepo = "https://raw.githubusercontent.com/RyosukeOzaki/Logistic-Regression/9ec5348a0cd608863ef3bf9ee5d1c4c57baf81c8/processed_acl/"
)

func init() {
	fetch.Register(&fetch.Source{
		Name: "20news-bydate.tar.gz",
		URLs: []string{"http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz", "https://ndownloader.figshare.com/files/5975967"},
		// scikit-learn's checksum of the original archive (its figshare copy).
		SHA256: newsSHA256,
		// Its size is not published with the checksum: a bound (the
		// archive is 14.5 MB), so a server cannot fill the disk.
		MaxSize: 20 << 20,
		Files: []fetch.File{{Path: "20news-bydate.tar.gz", SHA256: newsSHA256, Known: []fetch.Copy{{
			SHA256: "8ab7185c9693a72ad71f35a6221d303d33c50a3252a8904f48f55ee9a3930d4d", Size: 14496015,
			Note: "../shared/data/paper's re-tar of the same 18,846 messages (YunomiXavia/20news-bydate @ 2298b3e), not the original archive"}}}},
		License:  "none stated; widely redistributed for research",
		Citation: "K. Lang, NewsWeeder: Learning to Filter Netnews, ICML 1995; by-date version from J. Rennie's 20 Newsgroups page",
		Note:     "the original archive as distributed (checksum as scikit-learn's fetch_20newsgroups declares it)",
	})
	fetch.Register(&fetch.Source{
		Name:   "aclImdb_v1.tar.gz",
		URLs:   []string{"https://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz"},
		SHA256: imdbSHA256,
		// A bound, not the size (the archive is 84 MB).
		MaxSize: 100 << 20,
		Files:   []fetch.File{{Path: "imdb/aclImdb_v1.tar.gz", SHA256: imdbSHA256}},
		// The loader reads the labelled reviews of the full archive too.
		License:  "none stated; the authors ask that the paper be cited",
		Citation: "A. Maas et al., Learning Word Vectors for Sentiment Analysis, ACL 2011",
		Note:     "the original archive (with the 50,000 unlabelled reviews the loader skips); checksum as TensorFlow Datasets and others publish it",
	}, &fetch.Source{
		Name: "aclImdb_labeled.tar.gz",
		Files: []fetch.File{{Path: "imdb/aclImdb_labeled.tar.gz", Size: 28775989,
			SHA256: "3cf240dff0e6bb27dcc1336f4489d4425b741bcebae8f757e7ca319be103e96a"}},
		License:  "none stated; the authors ask that the paper be cited",
		Citation: "A. Maas et al., Learning Word Vectors for Sentiment Analysis, ACL 2011",
		Note: "derived: aclImdb_v1.tar.gz without train/unsup and the *.feat files, re-tarred by ../shared/data/paper; " +
			"fetch the original instead (repro data fetch of a dataset with file: imdb/aclImdb_v1.tar.gz), which the imdb loader reads alike",
	})
	for _, domain := range []string{"books", "dvd", "electronics", "kitchen"} {
		for _, pol := range []string{"positive", "negative"} {
			c := aclContent[domain+"/"+pol]
			fetch.Register(&fetch.Source{
				Name:   domain + "-" + pol + ".review",
				URLs:   []string{aclRepo + domain + "/" + pol + ".review"},
				SHA256: c.sha256, Size: c.size,
				Files: []fetch.File{{Path: "amazon/processed_acl/" + domain + "/" + pol + ".review.gz", Gzip: true,
					SHA256: c.sha256, Size: c.size}},
				License:  "none stated; Amazon review text distributed by the authors for research",
				Citation: "J. Blitzer, M. Dredze, F. Pereira, Biographies, Bollywood, Boom-boxes and Blenders: Domain Adaptation for Sentiment Classification, ACL 2007",
				Note: "the labelled processed_acl file of Blitzer's processed_acl.tar.gz (https://www.cs.jhu.edu/~mdredze/datasets/sentiment/), " +
					"from a GitHub copy at a fixed commit, stored gzip-compressed; the checksum is of the review text",
			})
		}
	}
}

// aclContent are the SHA-256 and size of each labelled processed_acl file.
var aclContent = map[string]struct {
	sha256 string
	size   int64
}{
	"books/negative":       {"42e4d7e63f429e396de0db87b814f8c6a4b4948d34c94524725b0fe2944a0ff4", 2949909},
	"books/positive":       {"d27a35a59e99b2c2d56731cad8d63870f8a3b9063a70bf8c18862e0a107cdd02", 2859546},
	"dvd/negative":         {"9f0c977cf863f361f1f9961dc9e8c2b88630902da3eb5fd880146445144c355d", 2629644},
	"dvd/positive":         {"7e3a2655f9afd141bba569d0df6a4444f6bfa3c28daf243f21125c757940b563", 2921403},
	"electronics/negative": {"497d95c1ce079d2db672f9d2efa9cc02ba4ebd2a525f7b2495233305def11616", 1793684},
	"electronics/positive": {"38d0ee5fd4147cfaff427b7f8c1ea9aacbb1fd383d51676288b7af5947fe039f", 1758673},
	"kitchen/negative":     {"674510d22f8f0b27790d323ef8633408777e92c122e801ee4ba02bb001d1d798", 1503573},
	"kitchen/positive":     {"30fd84894433ee9dd7f7aa3da6f858811104e364528719be2d77372295c7d3b3", 1490635},
}

// aclFiles returns the labelled review files of the domain (the loader
// also reads them uncompressed, and an optional unlabeled.review).
func aclFiles(p aclParams) []string {
	dir := path.Join(p.Dir, p.Domain)
	return []string{path.Join(dir, "positive.review.gz"), path.Join(dir, "negative.review.gz")}
}
