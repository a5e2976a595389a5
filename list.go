package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/repro-ml/repro/datasets"
	"github.com/repro-ml/repro/methods"
	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
	"github.com/repro-ml/repro/protocols/active"
	"github.com/repro-ml/repro/spec"
)

func cmdList(stdout, stderr io.Writer, args []string) int {
	kinds := []string{"methods", "datasets", "transforms", "metrics", "protocols", "splits", "selectors", "strategies"}
	if len(args) > 1 {
		fmt.Fprintf(stderr, "usage: repro list [%s]\n", strings.Join(kinds, "|"))
		return exitUsage
	}
	all := kinds
	if len(args) == 1 {
		kinds = args[:1]
	}
	for i, k := range kinds {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		switch k {
		case "methods", "method":
			fmt.Fprintln(stdout, "METHODS")
			for _, name := range methods.Names() {
				p, _ := methods.Lookup(name)
				params := p.Params
				if p.Free != nil {
					free := *p.Free
					free.Name, free.Optional = "NAME", true
					free.DefaultDoc = "any other name"
					params = append(slices.Clone(params), free)
				}
				listPlugin(stdout, name, p.Doc+" ["+p.Handles()+"]", params)
			}
		case "datasets", "dataset":
			fmt.Fprintln(stdout, "DATASETS")
			for _, name := range datasets.Names() {
				l, _ := datasets.Lookup(name)
				listPlugin(stdout, name, l.Doc, l.Params)
			}
		case "transforms", "transform":
			fmt.Fprintln(stdout, "TRANSFORMS")
			for _, name := range datasets.TransformNames() {
				t, _ := datasets.LookupTransform(name)
				listPlugin(stdout, name, t.Doc, t.Params)
			}
		case "metrics", "metric":
			fmt.Fprintln(stdout, "METRICS")
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			for _, name := range metric.Names() {
				m, _ := metric.Lookup(name)
				dir := "lower is better"
				if m.HigherIsBetter {
					dir = "higher is better"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s; %s\n", name, m.Kinds, m.Doc, dir)
			}
			tw.Flush()
		case "protocols", "protocol":
			fmt.Fprintln(stdout, "PROTOCOLS (protocol:)")
			for _, name := range spec.Protocols.Names() {
				p, _ := spec.LookupProtocol(name)
				listPlugin(stdout, name, p.Doc, p.Params)
			}
		case "splits", "split":
			fmt.Fprintln(stdout, "SPLIT KINDS (split: kind)")
			for _, name := range spec.Splitters.Names() {
				p, _ := spec.LookupSplitter(name)
				listPlugin(stdout, name, p.Doc, p.Params)
			}
		case "selectors", "selector":
			fmt.Fprintln(stdout, "SELECT RULES (select: rule)")
			for _, name := range spec.Selectors.Names() {
				p, _ := spec.LookupSelector(name)
				fmt.Fprintf(stdout, "  %s — %s\n", name, oneLine(p.Doc))
			}
		case "strategies", "strategy":
			fmt.Fprintln(stdout, "QUERY STRATEGIES (protocol active: strategy)")
			for _, name := range active.Strategies.Names() {
				p, _ := active.Strategies.Lookup(name)
				listPlugin(stdout, name, p.Doc, nil)
			}
		default:
			fmt.Fprintf(stderr, "repro list: unknown kind %q; want one of %s\n", k, strings.Join(all, ", "))
			return exitUsage
		}
	}
	return exitOK
}

// listPlugin prints a plugin's name and doc, then one line per parameter:
// name, type and range, default ("required" when there is none) and doc,
// aligned in columns.
func listPlugin(w io.Writer, name, doc string, params []param.Decl) {
	fmt.Fprintf(w, "  %s — %s\n", name, oneLine(doc))
	if len(params) == 0 {
		fmt.Fprintf(w, "      (no parameters)\n")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, d := range params {
		def := "required"
		switch {
		case d.DefaultDoc != "":
			def = d.DefaultDoc
		case !d.Required():
			def = "default " + d.DefaultString()
		}
		fmt.Fprintf(tw, "      %s\t%s\t%s\t%s\n", d.Name, oneLine(d.Range()), oneLine(def), oneLine(d.Doc))
	}
	tw.Flush()
}

// oneLine collapses runs of white space (line breaks included) into single
// spaces, so that a doc never breaks the listing's columns.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
