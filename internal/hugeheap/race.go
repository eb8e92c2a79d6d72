//go:build race

package hugeheap

// Under the race detector every heap allocation also resets its shadow
// memory, so a reservation of gigabytes costs seconds and gigabytes:
// Reserve does nothing there (it is a speed measure, and race builds are
// not for speed).
const raceEnabled = true
