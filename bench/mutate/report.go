package main

// This file adds runs up into the sweep's figures and saves failing
// variants with the command lines that failed on them.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// extreme is the run that set a record.
type extreme struct {
	Value   float64 `json:"value"`
	Command string  `json:"command"`
	Variant int     `json:"variant"`
	Seed    string  `json:"seed"`
}

// summary is the sweep's figures (summary.json).
type summary struct {
	SweepSeed      uint64                    `json:"sweep_seed"`
	Requested      int                       `json:"requested"`
	Variants       int                       `json:"variants"`
	Runs           int                       `json:"runs"`
	Failures       int                       `json:"failures"`
	FailedVariants int                       `json:"failed_variants"`
	SeedModels     map[string]int            `json:"seed_models"` // by source: shared/models, testdata/models, hostile
	SeedsUsed      int                       `json:"seeds_used"`
	Outcomes       map[string]map[string]int `json:"outcomes"` // command -> outcome -> runs
	Mutations      map[string]int            `json:"mutations"`
	Mismatches     int                       `json:"verify_mismatches"` // verify ran both and outputs differ
	TimeLimited    int                       `json:"time_limited"`      // run or verify stopped by wolong's --timeout
	Reimport       int                       `json:"emitted_failed"`    // verify ran the variant but not the model optimize emitted (limits aside)
	Slowest        extreme                   `json:"slowest_seconds"`
	MaxRSS         extreme                   `json:"max_rss_bytes"`
	TimeoutSeconds float64                   `json:"timeout_seconds"`
	MaxMemory      int64                     `json:"max_memory_bytes"`
	RSSLimit       int64                     `json:"rss_limit_bytes"`
	WallSeconds    float64                   `json:"wall_seconds"`
	seedSeen       map[string]bool
}

func newSummary(cfg *config, seeds []*seedModel) *summary {
	s := &summary{SweepSeed: cfg.seed, Requested: cfg.n, SeedModels: map[string]int{}, Outcomes: map[string]map[string]int{},
		Mutations: map[string]int{}, TimeoutSeconds: cfg.timeout.Seconds(), MaxMemory: cfg.maxMem, RSSLimit: cfg.maxMem + cfg.margin,
		seedSeen: map[string]bool{}}
	for _, sd := range seeds {
		s.SeedModels[sd.source]++
	}
	for _, c := range commandNames {
		s.Outcomes[c] = map[string]int{}
	}
	return s
}

func (s *summary) add(v *variant, res []result) {
	s.Variants++
	if !s.seedSeen[v.seed.name] {
		s.seedSeen[v.seed.name] = true
		s.SeedsUsed++
	}
	for _, k := range v.kinds {
		s.Mutations[k]++
	}
	failed := false
	for _, r := range res {
		s.Runs++
		s.Outcomes[r.Command][r.Outcome]++
		if failure(r.Outcome) {
			s.Failures++
			failed = true
		}
		switch {
		case r.Command == "verify" && strings.Contains(r.Stderr, "outputs differ"):
			s.Mismatches++
		case r.Command == "verify" && r.Outcome == outError && len(r.Args) > 2 && r.Args[2] != r.Args[1] &&
			strings.Contains(r.Stderr, r.Args[2]+":") && !strings.Contains(r.Stderr, "limit"):
			s.Reimport++ // the original ran; the optimized model failed to load or to run
		}
		if strings.Contains(r.Stderr, "over the time limit (--timeout)") {
			s.TimeLimited++
		}
		if r.Seconds > s.Slowest.Value {
			s.Slowest = extreme{r.Seconds, r.Command, r.Variant, r.Seed}
		}
		if float64(r.MaxRSS) > s.MaxRSS.Value {
			s.MaxRSS = extreme{float64(r.MaxRSS), r.Command, r.Variant, r.Seed}
		}
	}
	if failed {
		s.FailedVariants++
	}
}

// print writes the figures as text, one table row per command.
func (s *summary) print(w io.Writer) {
	fmt.Fprintf(w, "seed %d: %d variants from %d seed models (%s), %d runs, %d failures in %d variants, %.0f s\n",
		s.SweepSeed, s.Variants, s.SeedsUsed, sources(s.SeedModels), s.Runs, s.Failures, s.FailedVariants, s.WallSeconds)
	fmt.Fprintf(w, "%-9s", "command")
	for _, o := range outcomes {
		fmt.Fprintf(w, " %11s", o)
	}
	fmt.Fprintln(w)
	for _, c := range commandNames {
		fmt.Fprintf(w, "%-9s", c)
		for _, o := range outcomes {
			fmt.Fprintf(w, " %11d", s.Outcomes[c][o])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "verify: outputs differ on %d variants; the emitted model failed where the variant ran on %d; %d runs stopped at --timeout\n", s.Mismatches, s.Reimport, s.TimeLimited)
	fmt.Fprintf(w, "slowest run: %.2f s (%s, variant %d of %s); limit %.0f s\n", s.Slowest.Value, s.Slowest.Command, s.Slowest.Variant, s.Slowest.Seed, s.TimeoutSeconds)
	fmt.Fprintf(w, "max RSS: %.0f MiB (%s, variant %d of %s); limit %d MiB (--max-memory %d MiB)\n",
		s.MaxRSS.Value/(1<<20), s.MaxRSS.Command, s.MaxRSS.Variant, s.MaxRSS.Seed, s.RSSLimit>>20, s.MaxMemory>>20)
	names := make([]string, 0, len(s.Mutations))
	for k := range s.Mutations {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %d", k, s.Mutations[k]))
	}
	fmt.Fprintf(w, "mutations: %s\n", strings.Join(parts, ", "))
}

func sources(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

// saveFailure copies the variant and its side files to dir/vNNNNN and
// writes cmd.txt: what was mutated and, per failed run, the command line
// (runnable from that folder), its outcome, exit status and stderr.
func saveFailure(dir string, v *variant, failed []result) error {
	d := filepath.Join(dir, fmt.Sprintf("v%05d", v.index))
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	if err := copySideFiles(v.seed.work, d); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(d, "v.onnx"), v.data, 0o644); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# variant %d of seed model %s\n", v.index, v.seed.name)
	for i, k := range v.kinds {
		fmt.Fprintf(&b, "# mutation %s: %s\n", k, v.log[min(i, len(v.log)-1)])
	}
	for _, r := range failed {
		args := make([]string, len(r.Args))
		for i, a := range r.Args {
			args[i] = shellQuote(strings.ReplaceAll(a, v.seed.work+string(filepath.Separator), ""))
		}
		fmt.Fprintf(&b, "\n# %s: %s, exit %d, %.2f s, max RSS %d MiB\nwolong %s\n", r.Command, r.Outcome, r.Exit, r.Seconds, r.MaxRSS>>20, strings.Join(args, " "))
		for _, l := range strings.Split(strings.TrimRight(r.Stderr, "\n"), "\n") {
			fmt.Fprintf(&b, "#   %s\n", l)
		}
	}
	return os.WriteFile(filepath.Join(d, "cmd.txt"), []byte(b.String()), 0o644)
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
