package fetch_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/repro-ml/repro/datasets/fetch"
)

func ExampleMirrorURL() {
	u, _ := fetch.MirrorURL("https://linqs-data.soe.ucsc.edu/public/lbc/cora.tgz", "http://10.0.0.5:8080/mirror")
	fmt.Println(u)
	// Output: http://10.0.0.5:8080/mirror/public/lbc/cora.tgz
}

func ExampleClient_Fetch() {
	content := []byte("sepal,petal,class\n5.1,1.4,setosa\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(content) }))
	defer srv.Close()

	h := sha256.Sum256(content)
	sum := hex.EncodeToString(h[:])
	src := &fetch.Source{
		Name:   "iris.csv",
		URLs:   []string{"https://example.org/data/iris.csv"},
		SHA256: sum,
		// The size bounds the download: a server cannot send more.
		Size: int64(len(content)),
		// Stored gzip-compressed; the checksum is of the content.
		Files: []fetch.File{{Path: "iris/iris.csv.gz", Gzip: true, SHA256: sum, Size: int64(len(content))}},
	}

	dir, _ := os.MkdirTemp("", "data")
	defer os.RemoveAll(dir)
	c := &fetch.Client{Mirror: srv.URL} // the test server stands for example.org
	if err := c.Fetch(context.Background(), dir, src); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fetch.Verify(dir, &src.Files[0]).State)
	// Output: verified
}
