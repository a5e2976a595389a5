package linqs

import (
	"github.com/repro-ml/repro/datasets/fetch"
)

// Where Cora and CiteSeer come from (`repro data`): LINQS's archives. Their
// own checksums are not known here, so each file extracted is checked
// against the checksum of ../shared/data/paper's copy (whose content and
// cites files are git-blob-identical to tkipf/pygcn's and
// chenyazhen/pygcn_citeseer's copies of the LINQS files) before it is
// placed.
func init() {
	fetch.Register(
		linqsSource("cora", "b8ebed0fd45e53995abafd1b70cf6a9fcc8f86abc5826d69b97fe6ca46e9c8ee", 7823427,
			"ec1a372391b7f0f60a6aff0084e8abd8f19f0faa7e1f2441a41c492042d5945e", 69928,
			"A. McCallum et al., Automating the construction of Internet portals with machine learning, Information Retrieval 2000"),
		linqsSource("citeseer", "de4a3ca98626d77193f27af5c976b981a56080e6273c4e1c05764a95d2143ff8", 24589190,
			"cd9730630eaaa745058c2cd2cce6b9afb79ca71278a479aebec55f4cf5eb7f30", 137062,
			"C. L. Giles, K. Bollacker, S. Lawrence, CiteSeer: An Automatic Citation Indexing System, 1998"),
	)
}

// linqsSource declares LINQS's name.tgz: name/name.content, stored
// gzip-compressed, and name/name.cites, with their checksums and sizes.
func linqsSource(name, content string, contentSize int64, cites string, citesSize int64, cite string) *fetch.Source {
	return &fetch.Source{
		Name:   name + ".tgz",
		URLs:   []string{"https://linqs-data.soe.ucsc.edu/public/lbc/" + name + ".tgz"},
		Unpack: fetch.Untar,
		Files: []fetch.File{
			{Path: name + "/" + name + ".content.gz", Member: name + "/" + name + ".content", Gzip: true, SHA256: content, Size: contentSize},
			{Path: name + "/" + name + ".cites", Member: name + "/" + name + ".cites", SHA256: cites, Size: citesSize},
		},
		License:  "none stated; distributed by LINQS for research",
		Citation: cite + "; P. Sen et al., Collective Classification in Network Data, AI Magazine 2008",
		Note:     "the LINQS archive; its checksum is not known here, the extracted files' are (computed from the original content and cites files), and the content file is stored gzip-compressed",
	}
}

// files returns the content and cites files a loader reads: cites, or
// the file beside content.
func files(content, cites string) []string {
	if cites == "" {
		cites = CitesFor(content)
	}
	return []string{content, cites}
}
