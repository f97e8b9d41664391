//go:build race

package rlog

// raceEnabled: the race detector slows byte loops (JSON of a 10 MB document
// takes seconds), so the few tests with huge inputs scale down under it.
const raceEnabled = true
