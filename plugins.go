package main

// The plugins built into repro. Each package registers its methods,
// datasets, transforms or metrics from init.
import (
	_ "github.com/repro-ml/repro/methods/metric"
)
