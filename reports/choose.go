package reports

import (
	"fmt"
	"math"

	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/results"
	"github.com/repro-ml/repro/spec"
)

// chooseDatasets returns the results the report.choose entries of spec
// make from results (see runner.DatasetChoice): for each entry, method
// series, size and trial index, a copy of the result of the entry's
// dataset whose select score is best under the method's select metric,
// ties to the first in Among, under the entry's id and with the chosen
// dataset added to Chosen as "dataset". A trial is compared only when
// every dataset of Among has it: while one is missing (not run yet) the
// choice makes nothing for it, and where one failed the choice is that
// failure. A result without a select score (a fixed rule, one grid point,
// results stored before scores were recorded) cannot be compared: the
// choice is a failed result saying so. planned maps trial keys to the
// plan's trials (the size as the spec writes it), when known.
func chooseDatasets(sp *spec.Spec, recs []results.Result, planned map[string]*spec.Trial) []results.Result {
	if len(sp.Report.Choose) == 0 {
		return nil
	}
	type trialID struct {
		dataset, series string
		size            float64
		trial           int
	}
	byID := map[trialID]*results.Result{}
	for i := range recs {
		r := &recs[i]
		byID[trialID{r.Dataset, spec.SeriesName(r.Method, param.Values(r.Variant)), plannedSize(r, planned), r.Trial}] = r
	}
	methods := map[string]*spec.MethodSpec{}
	for i := range sp.Methods {
		m := &sp.Methods[i]
		label := m.Label
		if label == "" {
			label = m.Name
		}
		methods[label] = m
	}
	var out []results.Result
	for _, c := range sp.Report.Choose {
		if len(c.Among) == 0 {
			continue
		}
		seen := map[trialID]bool{}
		for i := range recs {
			first := &recs[i]
			if first.Dataset != c.Among[0] {
				continue
			}
			id := trialID{"", spec.SeriesName(first.Method, param.Values(first.Variant)), plannedSize(first, planned), first.Trial}
			if seen[id] {
				continue
			}
			seen[id] = true
			var members []*results.Result
			for _, ds := range c.Among {
				id.dataset = ds
				if r := byID[id]; r != nil {
					members = append(members, r)
				}
			}
			if len(members) < len(c.Among) {
				continue
			}
			out = append(out, choose(c, members, methods[first.Method]))
		}
	}
	return out
}

// choose returns the result a choice makes of members, one per dataset of
// c.Among in order, by the select metric of m.
func choose(c spec.DatasetChoice, members []*results.Result, m *spec.MethodSpec) results.Result {
	fail := func(r *results.Result, format string, args ...any) results.Result {
		out := *r
		out.Dataset = c.ID
		out.Metrics, out.Extras, out.Bootstrap, out.Observations = nil, nil, nil, nil
		out.Error = fmt.Sprintf(format, args...)
		return out
	}
	for i, r := range members {
		if r.Failed() {
			return fail(r, "dataset %s: %s", c.Among[i], r.Error)
		}
	}
	higher := true
	if m != nil {
		if mt, err := metric.Lookup(m.Select.Metric); err == nil {
			higher = mt.HigherIsBetter
		}
	}
	best := -1
	for i, r := range members {
		if r.SelectScore == nil || math.IsNaN(*r.SelectScore) {
			return fail(r, "dataset %s: no select score to choose by (the method needs a cv or test rule over two or more grid points; results stored before scores were recorded have none)", c.Among[i])
		}
		v := *r.SelectScore
		if best < 0 || (higher && v > *members[best].SelectScore) || (!higher && v < *members[best].SelectScore) {
			best = i
		}
	}
	out := *members[best]
	out.Dataset = c.ID
	chosen := make(map[string]any, len(out.Chosen)+1)
	for k, v := range out.Chosen {
		chosen[k] = v
	}
	chosen["dataset"] = c.Among[best]
	out.Chosen = chosen
	return out
}

// plannedSize returns the size of r's trial as the spec writes it (a
// fraction stays a fraction), or r's own size when the plan does not know
// its key.
func plannedSize(r *results.Result, planned map[string]*spec.Trial) float64 {
	if t := planned[r.Key]; t != nil {
		return t.Size
	}
	return float64(r.Size)
}
