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
	rep := &report.HostCalibration{Result: res, Threads: ho.Threads, Written: map[int]string{}}
	if !ho.NoSave {
		if rep.SavedIn, err = hw.UserDir(); err == nil {
			err = out.b.MkdirAll(rep.SavedIn)
		}
	}
	var written []string
	for i, f := range res.Fits {
		write := func(path string) error {
			written = append(written, path)
			return out.b.Write(path, nil, func(w io.Writer) error { return f.HW.WriteJSON(w) })
		}
		if opts.Out != "" {
			rep.Written[ho.Threads[i]] = host.OutPath(opts.Out, ho.Threads[i])
			if err := write(rep.Written[ho.Threads[i]]); err != nil {
				return fmt.Errorf("-o: %v", err)
			}
		}
		if !ho.NoSave {
			if err == nil {
				err = write(filepath.Join(rep.SavedIn, f.HW.Name+".json"))
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
		env.warn(f.Warnings(ho.Threads[i]))
	}
	if opts.Format == report.JSON {
		return report.WriteJSON(env.Out, host.NewReport(res, ho.Threads, written))
	}
	return rep.WriteText(env.Out)
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
