package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// WholeKey is the key of t computed as trial keys were before keyPrefix:
// the whole identity, size and trial included, marshalled at once.
func WholeKey(sp *Spec, t *Trial) (string, error) {
	id := identity(sp, datasetIdentity(t.Dataset), t)
	id["size"], id["trial"] = t.Size, t.Index
	b, err := json.Marshal(id)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12]), nil
}
