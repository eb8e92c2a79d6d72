package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/internal/ortbench"
	"github.com/wolong-dev/wolong/report"
	"github.com/wolong-dev/wolong/simulate/calibrate/host"
	"github.com/wolong-dev/wolong/simulate/hw"
)

func parseThreads(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, p := range strings.Split(s, ",") {
		t, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || t < 1 || t > 256 {
			return nil, fmt.Errorf("want a list of thread counts such as 1,2, got %q", s)
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	sort.Ints(out)
	if out[0] != 1 {
		return nil, fmt.Errorf("the list must include 1 (the other counts start from its fit), got %q", s)
	}
	return out, nil
}

// calibrateHostRun is `wolong calibrate --host`: measure this machine with
// generated models and write (and save) the fitted hardware file.
func calibrateHostRun(env *Env, opts *CalibrateOptions) error {
	ho := opts.Host
	p := env.Progress
	res, err := host.Calibrate(context.Background(), host.Options{
		Name: opts.Name, Threads: ho.Threads, Dir: ho.Keep, From: ho.From, MaxSeconds: ho.MaxSeconds, Joint: opts.Joint,
		Progress: func(done, total int, line string) {
			p.Printf("calibrate --host: measured %d/%d: %s", done, total, line)
		},
	})
	p.Done()
	if err != nil {
		if errors.Is(err, ortbench.ErrMissing) {
			return errors.New(strings.TrimPrefix(err.Error(), ortbench.ErrMissing.Error()+": "))
		}
		return err
	}
	// every output or none: the files are staged, then committed together
	out := newOutputs()
	defer out.abort()
	var written []string
	write := func(path string, h *hw.Hardware) error {
		if err := out.b.Write(path, nil, func(w io.Writer) error { return h.WriteJSON(w) }); err != nil {
			return err
		}
		written = append(written, path)
		return nil
	}
	outs := map[int]string{}
	for i, f := range res.Fits {
		t := ho.Threads[i]
		if opts.Out != "" {
			path := opts.Out
			if t > 1 {
				path = strings.TrimSuffix(opts.Out, ".json") + fmt.Sprintf("-%dt.json", t)
			}
			if err := write(path, f.HW); err != nil {
				return fmt.Errorf("-o: %v", err)
			}
			outs[t] = path
		}
		if !ho.NoSave {
			dir, err := hw.UserDir()
			if err == nil {
				err = out.b.MkdirAll(dir)
			}
			if err == nil {
				err = write(filepath.Join(dir, f.HW.Name+".json"), f.HW)
			}
			if err != nil {
				return fmt.Errorf("saving %s for --hw %s: %v (use --no-save -o FILE.json)", f.HW.Name, f.HW.Name, err)
			}
		}
	}
	if err := out.commit(); err != nil {
		return err
	}
	for i, f := range res.Fits {
		if u := f.Unsettled; len(u) > 0 {
			env.warn([]string{fmt.Sprintf("%d thread(s): the machine was too noisy: %d of %d models' medians are not known to within %d%% (95%% interval) after %d passes and more for the noisy ones (widest: %s +-%.0f%%); the fit weighs them by their noise; re-run wolong calibrate --host when the machine is quiet",
				ho.Threads[i], len(u), len(f.Models), host.TargetCIPct, host.Passes, u[0].Name, u[0].CIPct)})
		}
		if f.NoisePct > host.NoisyPct {
			env.warn([]string{fmt.Sprintf("%d thread(s): the machine's speed varied while measuring (a model's two passes differ by %.1f%% at the median, %d models by more than 10%%): another process was likely running; the fit is less reliable: re-run wolong calibrate --host when the machine is quiet",
				ho.Threads[i], f.NoisePct, f.NoisyModels)})
		}
	}
	if opts.Format == report.JSON {
		return report.WriteJSON(env.Out, host.NewReport(res, ho.Threads, written))
	}
	writeHost(env.Out, res, ho, outs)
	return nil
}

func writeHost(w io.Writer, res *host.Result, ho *HostOptions, outs map[int]string) {
	for i, f := range res.Fits {
		t := ho.Threads[i]
		fmt.Fprintf(w, "%s: %s\n", f.HW.Name, f.HW.Fitted.Describe())
		rows := [][]string{}
		for _, g := range host.GroupErrors(f.Models) {
			held, fit := "-", "-"
			if g.NHeld > 0 {
				held = fmt.Sprintf("%.1f%% (%d)", g.HeldMAPE, g.NHeld)
			}
			if g.N > 0 {
				fit = fmt.Sprintf("%.1f%% (%d)", g.FitMAPE, g.N)
			}
			rows = append(rows, []string{g.Group, fit, held})
		}
		fmt.Fprintf(w, "\nend-to-end error by group, %d thread(s) (MAPE, models):\n", t)
		report.WriteTable(w, []string{"group", "fitted on", "held out"}, rows)
		var hp []string
		for _, p := range f.Calib.Host {
			hp = append(hp, fmt.Sprintf("%s %.4g", p.Name, p.After))
		}
		hostLine := strings.Join(hp, ", ")
		if hostLine == "" {
			hostLine = "kept from the one-thread fit"
		}
		fmt.Fprintf(w, "host: %s; memory %.4g GB/s, cache %.4g GB/s (L2 %.3g MB); %d op types with efficiencies of their own\n",
			hostLine, f.HW.MemoryBandwidthGBs, f.HW.CacheBandwidthGBs, f.HW.L2MB, len(f.HW.Efficiency.Ops))
		fmt.Fprintf(w, "fit: %.1f%% MAPE on the %d models fitted on, %.1f%% on the %d held out\n", f.TrainMAPE, host.Count(f.Models, false), f.HeldMAPE, host.Count(f.Models, true))
		fmt.Fprintf(w, "machine noise: a model's two measuring passes differ by %.1f%% (median, beyond the shift all models share); %d models by more than 10%%\n", f.NoisePct, f.NoisyModels)
		if p := outs[t]; p != "" {
			fmt.Fprintf(w, "wrote %s (use it with --hw %s)\n", p, p)
		}
		if !ho.NoSave {
			dir, _ := hw.UserDir()
			fmt.Fprintf(w, "saved %s (use it with --hw %s)\n", filepath.Join(dir, f.HW.Name+".json"), f.HW.Name)
		}
		if i < len(res.Fits)-1 {
			fmt.Fprintln(w)
		}
	}
	if res.Dir != "" {
		fmt.Fprintf(w, "models and measurements kept in %s (refit them with --from %s)\n", res.Dir, res.Dir)
	}
}

// checkHostName refuses a --name under which a saved fit would never be
// read: --hw NAME finds a preset before a saved file, so neither name nor
// a NAME-Nt of the thread counts may be a preset's.
func checkHostName(name string, threads []int) error {
	for _, t := range threads {
		n := name
		if t > 1 {
			n = fmt.Sprintf("%s-%dt", name, t)
		}
		if _, err := hw.Preset(n); err == nil {
			return Usagef("--name %q: a preset is called %s, and --hw %s finds the preset: choose another name, or --no-save -o FILE.json", name, n, n)
		}
	}
	return nil
}
