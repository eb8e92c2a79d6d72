package cmd

// This file implements `wolong version`: the build and the ONNX Runtime
// harness the measuring commands use.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wolong-dev/wolong/internal/ortbench"
	"github.com/wolong-dev/wolong/report"
)

// versionInfo is what `wolong version --format json` prints.
type versionInfo struct {
	Version    string  `json:"version"`
	Go         string  `json:"go"`
	Platform   string  `json:"platform"`
	Commit     string  `json:"commit,omitempty"`
	CommitTime string  `json:"commit_time,omitempty"`
	Modified   bool    `json:"modified,omitempty"`
	ORT        ortInfo `json:"ort"`
}

// ortInfo describes the ONNX Runtime harness (calibrate --host,
// validate's measurements): the version wolong installs, where, and
// whether it is installed.
type ortInfo struct {
	Version   string `json:"version"`   // the onnxruntime-node release wolong uses
	Dir       string `json:"dir"`       // the harness folder in the user's cache
	Installed string `json:"installed"` // the version installed there ("" if none)
	Node      string `json:"node"`      // node --version ("" if node is not on PATH)
}

// VersionOptions are the inputs of `wolong version`, typed.
type VersionOptions struct {
	Format report.Format
}

// NewCmdVersion builds `wolong version`; runF, when not nil, gets the
// options instead of running them (tests).
func NewCmdVersion(env *Env, runF func(*VersionOptions) error) *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "version",
		Short: "Print wolong's version and the ONNX Runtime version its measurements use",
		Long: `version prints wolong's version (the module version of 'go install', or
the commit a 'go build' was made from), the Go toolchain and platform, and
the ONNX Runtime release the measuring commands (calibrate --host) install
into the user's cache, whether it is installed, and the node it runs under.`,
		Example: `  wolong version
  wolong version --format json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := parseFormat(format)
			if err != nil {
				return err
			}
			opts := &VersionOptions{Format: f}
			return runOr(runF, opts, func() error {
				v := buildVersion()
				if opts.Format == report.JSON {
					return report.WriteJSON(env.Out, v)
				}
				return v.writeText(env.Out)
			})
		},
	}
	c.Flags().StringVar(&format, "format", "table", "output format: table or json")
	return c
}

// buildVersion reads the build information and looks for the harness.
func buildVersion() versionInfo {
	v := versionInfo{Version: version(), Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		ORT: ortInfo{Version: ortbench.Version}}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.time":
				v.CommitTime = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if dir, err := ortbench.DefaultDir(); err == nil {
		v.ORT.Dir = dir
		var pkg struct {
			Version string `json:"version"`
		}
		if data, err := os.ReadFile(filepath.Join(dir, "node_modules", "onnxruntime-node", "package.json")); err == nil && json.Unmarshal(data, &pkg) == nil {
			v.ORT.Installed = pkg.Version
		}
	}
	if node, err := exec.LookPath("node"); err == nil {
		if out, err := exec.Command(node, "--version").Output(); err == nil {
			v.ORT.Node = strings.TrimSpace(string(out))
		}
	}
	return v
}

// writeText prints the version in two lines.
func (v versionInfo) writeText(w io.Writer) error {
	build := v.Go + ", " + v.Platform
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		build += ", commit " + c
		if v.CommitTime != "" {
			build += " of " + v.CommitTime
		}
		if v.Modified {
			build += ", with uncommitted changes"
		}
	}
	ort := "not installed yet (wolong calibrate --host installs it, with npm, into " + v.ORT.Dir + ")"
	if v.ORT.Installed != "" {
		ort = "onnxruntime-node " + v.ORT.Installed + " in " + v.ORT.Dir
	}
	node := "node not found on PATH (the harness needs Node.js 18 or later)"
	if v.ORT.Node != "" {
		node = "node " + v.ORT.Node
	}
	_, err := fmt.Fprintf(w, "wolong %s (%s)\nONNX Runtime %s for measurements: %s; %s\n", v.Version, build, v.ORT.Version, ort, node)
	return err
}
