// Package results is the contract between running an experiment and
// reading it: the record of one trial (Result, its Observations and
// Points, Metrics and bootstrap Samples with their JSON forms), the store
// of an output directory and the facts about its datasets.
//
// An output directory holds results.jsonl (ResultsFile), one JSON line per
// finished trial appended and synced by a Store, and, for a sharded run,
// results/shard-I-of-N.jsonl per shard (Shard.File). ReadResults reads one
// file, reporting a corrupt line or a torn last line as a *LineError
// rather than failing; ReadAllResults merges every file of a directory,
// and Latest keeps the newest line of each trial key. datasets.json
// (DatasetsFile) describes each dataset as it loaded (DatasetInfo).
//
// A directory is one lock domain (LockDir, LockShard): a run of every
// trial, or the shards of one count N, hold it; anything else is refused
// with a *LockedError.
//
// Package runner writes these files; package reports and the diff and
// check commands read them, with the spec, without importing the
// executor (the way benchstat reads benchfmt).
package results
