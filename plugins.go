package main

// The plugins built into repro: package plugins links every plugin
// package; this file only assembles the build.
import _ "github.com/repro-ml/repro/plugins"
