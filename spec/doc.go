// Package spec is the experiment language: the YAML file that says which
// datasets, methods, sizes, protocol and expectations an experiment has.
//
// Load and Parse read a spec (load.go, decode.go), validate it
// (validate.go, series.go) and apply --set overrides (override.go); Marshal
// writes it back (marshal.go), and ReadSpec reads the resolved spec.yaml an
// output directory keeps, without consulting the method and dataset
// registries. Every field is declared once, by the Go types that hold
// the spec (spec.go): a field's tags say its key, type, default, range
// and checks, its doc comment documents it, and the declarations that
// decoding, encoding, validation and the field tables of docs/spec.md
// (SchemaDoc) use are derived from them (fields.go), with what only the
// registries know attached by hooks (schema.go). Regenerate the docs with
// go test ./spec -run 'TestSpecDoc|TestFieldDocs' -update. YAML syntax errors and bad bytes are located by
// package internal/yamlpos; the errors are collected in a SpecError (errors.go), each
// once, at FILE:LINE:COL, cut to a readable length.
//
// NewPlan expands a spec into trials — dataset × method variant × size ×
// trial index — each with a key hashed from its identity (plan.go), and
// Derive the seeds a trial uses (seed.go); Plan.Shards partitions a plan
// for `repro run --shard I/N` (shards.go). Both depend on the spec alone,
// so package results and package reports read stored results by the plan
// without the executor.
//
// Split kinds, select rules and protocols are registries (kinds.go:
// Splitters, Selectors, Protocols). Each kind registers once, from the
// package that executes it (runner), with a value that embeds its static
// description here — Splitter, Selector, Protocol: doc line, declared
// params with their checks, the trials a split makes, whether a rule is an
// oracle, the steps a protocol fits — and adds the code that runs it. This
// package reads the static half only.
package spec
