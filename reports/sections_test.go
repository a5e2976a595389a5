package reports

import (
	"testing"

	"github.com/repro-ml/repro/spec"
)

// TestProtocolSections checks that every report section a registered
// protocol lists (spec.Protocol.Sections) is one this package renders.
func TestProtocolSections(t *testing.T) {
	rendered := map[string]bool{ActiveSummary: true}
	some := false
	for _, name := range spec.Protocols.Names() {
		p, err := spec.LookupProtocol(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Sections {
			some = true
			if !rendered[s] {
				t.Errorf("protocol %s lists report section %q, which package reports does not render; want one of %v", name, s, rendered)
			}
		}
	}
	if !some {
		t.Error("no registered protocol lists a report section; want the active protocol's")
	}
}
