// Package runner turns a YAML experiment into trials and runs them.
//
// Load parses and validates a spec (spec.go, load.go, decode.go, validate.go,
// override.go for --set; Marshal in marshal.go writes it back); Plan expands it
// into trials — dataset × method variant × training size × trial index —
// each with a key hashed from its identity (plan.go); Run executes the trials
// not already in the result store on a pool of workers and appends each result
// durably as it finishes (run.go, store.go). Seeds derive from the experiment
// seed and a trial's identity only (seed.go), so results do not depend on the
// number of workers or on the order trials finish in.
package runner
