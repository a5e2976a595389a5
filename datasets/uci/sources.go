package uci

import (
	"path"

	"github.com/repro-ml/repro/datasets/fetch"
)

// Where the UCI and Delve files come from (`repro data`). The checksums are
// of ../shared/data/paper's copies: abalone.data and dermatology.data are
// GitHub copies with an added header line removed (abalone's 191,873 bytes
// are the UCI file's size), splice.data a GitHub copy; they are believed
// byte-identical to UCI's files but were not compared with them here (no
// network), so fetch refuses a UCI file that differs, saying so. ISOLET's
// CSV files are derived and cannot be fetched.

const (
	uciBase    = "https://archive.ics.uci.edu/ml/machine-learning-databases/"
	uciLicense = "CC BY 4.0 (UCI Machine Learning Repository)"
	uciCite    = "; and the UCI Machine Learning Repository (Kelly, Longjohn, Nottingham)"
	delveRepo  = "https://raw.githubusercontent.com/mkirchmeyer/ganRegression/3c2e6840e851c9f355faf1c49296dedc55e6bccd/data/census-house/house-price-16L/"
)

func init() {
	uciFile := func(name, url, sha string, size int64, cite, note string) *fetch.Source {
		return &fetch.Source{Name: name, URLs: []string{url}, SHA256: sha, Size: size,
			Files:   []fetch.File{{Path: "uci/" + name[:len(name)-len(".data")] + "/" + name, SHA256: sha, Size: size}},
			License: uciLicense, Citation: cite + uciCite, Note: note}
	}
	fetch.Register(
		uciFile("abalone.data", uciBase+"abalone/abalone.data",
			"de37cdcdcaaa50c309d514f248f7c2302a5f1f88c168905eba23fe2fbc78449f", 191873,
			"W. J. Nash et al., The Population Biology of Abalone, Sea Fisheries Division Tech. Report 48, 1994",
			"checksum of ../shared/data/paper's copy (gustavovazquez/datasets @ 90ffb73, its added header line removed)"),
		uciFile("dermatology.data", uciBase+"dermatology/dermatology.data",
			"455eba77f72cd087ce54a5a266c514c5f34e85000c8689ad09e796d68ad45742", 25964,
			"N. Ilter and H. A. Guvenir, Dermatology, 1998",
			"checksum of ../shared/data/paper's copy (Kyle-t-Schmidt/Dermatology @ 2ed3aaa, its added header line removed)"),
		uciFile("splice.data", uciBase+"molecular-biology/splice-junction-gene-sequences/splice.data",
			"ebbae10c85d3c285e2a2489a37e42bc2ee8d91d15005e391a9962fa3389a114f", 319000,
			"G. Towell, M. Noordewier, J. Shavlik, Molecular Biology (Splice-junction Gene Sequences), 1991",
			"checksum of ../shared/data/paper's copy (drusk/splice-junction-gene-sequences @ e862a92)"),
	)
	isolet := func(name, sha string, size int64) *fetch.Source {
		return &fetch.Source{Name: name,
			Files:    []fetch.File{{Path: "uci/isolet/" + name, Gzip: true, SHA256: sha, Size: size}},
			License:  uciLicense,
			Citation: "R. Cole, M. Fanty, ISOLET, 1994; M. Fanty, R. Cole, Spoken letter recognition, NIPS 1991" + uciCite,
			Note: "derived: converted from Deng Cai's MATLAB files Isolet1-4.mat and isolet5.mat (ma-xu/L21FS @ b9d4e8e, data/): " +
				"each row of fea (617 values, printed with 4 decimals, exact) then gnd (1-26), comma-separated, no header, gzip-compressed; " +
				"rows of isolet1-4 sorted by class. UCI's isolet*.data.Z hold the same values in speaker order",
		}
	}
	fetch.Register(
		isolet("isolet1+2+3+4.csv.gz", "4cc39b4b7ae21a66fd4284de29d229e1cf3af52dad99b05cd5d672001f80bae8", 28590865),
		isolet("isolet5.csv.gz", "4b93c2bb9fc9017313a7231f5a0e907f9316d10401b6d592670fabd0a797fb38", 7147413),
	)
	delve := func(name, sha string, size int64) *fetch.Source {
		return &fetch.Source{Name: name, URLs: []string{delveRepo + name}, SHA256: sha, Size: size,
			Files:    []fetch.File{{Path: "delve/house-price-16L/" + name, SHA256: sha, Size: size}},
			License:  "none stated; derived from the 1990 US Census",
			Citation: "C. E. Rasmussen et al., DELVE, University of Toronto, 1996",
			Note: "the census-house/house-price-16L prototask files as Delve's tools generate them from censusHouse.tar.gz " +
				"(http://www.cs.toronto.edu/~delve/data/census-house/), from a GitHub copy at a fixed commit",
		}
	}
	fetch.Register(
		delve("Prototask.data.gz", "245f39c9555eafae2d04e54a393e2178a3aae687465ae825fc17593b6f7f2288", 1383597),
		delve("Prototask.spec", "b215aa0cbea1ec96cd08cb1fdf7bba6c7d76dca69cf373e90055c28190a1ef70", 248),
	)
}

// isoletFiles returns the train and test files of the isolet plugin.
func isoletFiles(p isoletParams) []string {
	return []string{p.TrainFile, p.TestFile}
}

// delveFiles returns the data and spec files of the delve plugin.
func delveFiles(p delveParams) []string {
	spec := p.Spec
	if spec == "" {
		spec = delveSpec(p.File)
	}
	return []string{p.File, spec}
}

// delveSpec is the Prototask.spec beside the data file.
func delveSpec(file string) string { return path.Join(path.Dir(file), "Prototask.spec") }
