package cmd

import (
	"fmt"
	"strings"
)

// warn prints each warning once on stderr as "warning: MSG", one line
// each (a message that already starts with its severity, as inference
// diagnostics do, keeps it). Every command calls it with the warnings of
// its result, in every output format: JSON output also carries them in
// its "warnings" field, tables do not repeat them on stdout.
func (env *Env) warn(ws []string) {
	for _, w := range dedupe(ws) {
		w = oneLine(w)
		if !strings.HasPrefix(w, "warning: ") && !strings.HasPrefix(w, "error: ") {
			w = "warning: " + w
		}
		fmt.Fprintln(env.Err, w)
	}
}

// prefixed returns ws with each message prefixed by "prefix: " (to say
// which of several models or files a warning is about), after its
// "warning: " if it has one.
func prefixed(prefix string, ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = prefix + ": " + strings.TrimPrefix(w, "warning: ")
	}
	return out
}
