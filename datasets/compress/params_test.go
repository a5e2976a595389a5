package compress

import (
	"reflect"
	"testing"

	"github.com/repro-ml/repro/param"
)

// TestParamsMatchConstants: the tags of the transforms' parameters, which
// are literals, agree with the package's constants: k ends at MaxK, and
// lz77's orders are the Order constants.
func TestParamsMatchConstants(t *testing.T) {
	for _, ds := range [][]param.Decl{param.Of[kgramsParams]().Params, param.Of[compressParams]().Params, param.Of[lz77Params]().Params} {
		k, ok := param.Find(ds, "k")
		if !ok || k.Max == nil || *k.Max != MaxK {
			t.Errorf("k: %s; want the range to end at MaxK = %d", k.Range(), MaxK)
		}
	}
	order, _ := param.Find(param.Of[lz77Params]().Params, "order")
	want := []string{OrderGiven, OrderByClass, OrderByClassDesc, OrderRandom, OrderAlternating}
	if !reflect.DeepEqual(order.Choices, want) || order.Default != OrderGiven {
		t.Errorf("order: choices %v default %v; want %v default %v", order.Choices, order.Default, want, OrderGiven)
	}
}
