//go:build !race

package rlog

const raceEnabled = false
