package cmd

// This file tidies the messages wolong prints: errors and warnings come
// from packages that prefix their own name (Go's convention), and the
// command adds the flag or file they are about, which gave lines such as
// "--hw: hw: no preset" or "--ort-profile p.json: calibrate: p.json: ...".

import "strings"

// packagePrefixes are the package names wolong's packages put before their
// messages; to a user they are noise.
var packagePrefixes = map[string]bool{
	"importer": true, "ir": true, "eval": true, "optimize": true, "simulate": true, "calibrate": true,
	"cluster": true, "llm": true, "hw": true, "cost": true, "report": true, "safefile": true, "ortbench": true, "host": true,
}

// tidy drops, from a message made of ": "-separated parts, the parts that
// are only a package name and a part that repeats the end of the part
// before it (a path the caller already named).
func tidy(msg string) string {
	parts := strings.Split(msg, ": ")
	out := parts[:0:0]
	for i, p := range parts {
		if i < len(parts)-1 && packagePrefixes[p] {
			continue
		}
		if n := len(out); n > 0 && i < len(parts)-1 && p != "" && strings.HasSuffix(out[n-1], p) && (out[n-1] == p || strings.HasSuffix(out[n-1], " "+p)) {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ": ")
}
