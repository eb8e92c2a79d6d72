package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/wolong-dev/wolong/report"
)

// Version is wolong's version, set at link time with
// -ldflags "-X github.com/wolong-dev/wolong/cmd.Version=v1.2.3".
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "0.1.0-dev"
}

// Env is what every command gets: where to write, and whether stderr is a
// terminal (progress is shown only then).
type Env struct {
	// Out is stdout, carrying the width tables fit (report.FitTo): the
	// terminal's, or $COLUMNS; none when stdout is not a terminal and
	// COLUMNS is not set, or with --wide.
	Out           io.Writer
	Err           io.Writer
	ErrIsTerminal bool
	// Progress shows long work on stderr when it is a terminal.
	Progress *progress

	stdout     io.Writer // Out without a width
	wide       bool      // --wide
	cpuProfile string    // --cpuprofile: where to write a pprof CPU profile
	memProfile string    // --memprofile: where to write a pprof allocation profile
	stopCPU    func() error
	stopMem    func() error
	process    *process // the environment's runtime switches (process.go)
}

// buffered runs write with env.Out buffered (report.Buffered) and
// flushes it after: for the reports of a line per node or kernel
// (explain's rewrites, profile's table).
func (env *Env) buffered(write func() error) error {
	out := env.Out
	bw, flush := report.Buffered(out)
	env.Out = bw
	err := write()
	env.Out = out
	if ferr := flush(); err == nil {
		err = ferr
	}
	return err
}

// outputWidth is the width tables are fitted to: $COLUMNS when set to a
// number, else the terminal's width when stdout is one, else 0 (no
// fitting: a pipe or file gets whole lines).
func outputWidth(stdout io.Writer) int {
	if c := strings.TrimSpace(os.Getenv("COLUMNS")); c != "" {
		if n, err := strconv.Atoi(c); err == nil && n > 0 {
			return n
		}
	}
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 0
}

// commands lists the subcommands in the order help shows them, each
// running itself (no run-function hook).
var commands = []struct {
	name string // the command's Use name: newRoot builds only it when it is the one run
	mk   func(*Env) *cobra.Command
}{
	{"inspect", func(env *Env) *cobra.Command { return NewCmdInspect(env, nil) }},
	{"optimize", func(env *Env) *cobra.Command { return NewCmdOptimize(env, nil) }},
	{"profile", func(env *Env) *cobra.Command { return NewCmdProfile(env, nil) }},
	{"explain", func(env *Env) *cobra.Command { return NewCmdExplain(env, nil) }},
	{"hw", NewCmdHw},
	{"verify", func(env *Env) *cobra.Command { return NewCmdVerify(env, nil) }},
	{"run", func(env *Env) *cobra.Command { return NewCmdRun(env, nil) }},
	{"calibrate", func(env *Env) *cobra.Command { return NewCmdCalibrate(env, nil) }},
	{"validate", func(env *Env) *cobra.Command { return NewCmdValidate(env, nil) }},
	{"microbench", func(env *Env) *cobra.Command { return NewCmdMicrobench(env, nil) }},
	{"plan", NewCmdPlan},
	{"runtime", NewCmdRuntime},
	{"version", func(env *Env) *cobra.Command { return NewCmdVersion(env, nil) }},
}

// commandRun is the command args run when it is plainly one of commands
// (the first argument not a flag), else "": newRoot then builds that
// command alone. Building every command's flags was over a millisecond of
// each run's start-up (issue 25); help, completion and suggestions, which
// read the whole tree, get "" and the whole tree.
func commandRun(args []string) string {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			if a == "--" {
				return ""
			}
			continue
		}
		for _, c := range commands {
			if c.name == a {
				return a
			}
		}
		return ""
	}
	return ""
}

// NewRootCmd builds the command tree.
func NewRootCmd(env *Env) *cobra.Command { return newRoot(env, "") }

// newRoot builds the root command with every command, or with only the
// one called only when it is not "".
func newRoot(env *Env, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "wolong",
		Short: "Graph compiler and profiler for deep-learning models",
		Long: `wolong imports an ONNX model into its own IR, runs optimization passes
(operator batching, kernel fusion, RDMA-aware placement), simulates the result
on a cost model of GPU and RDMA hardware, and reports the predicted speedup.`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(report.Unfit(env.Out)) // help keeps cobra's own layout
	root.SetErr(env.Err)
	root.PersistentFlags().BoolVar(&env.wide, "wide", false, "print tables at full width (by default they fit the terminal, or $COLUMNS: long cells wrap, less important columns are left out)")
	root.PersistentFlags().StringVar(&env.cpuProfile, "cpuprofile", "", "write a pprof CPU profile of the command to `FILE` (for wolong's developers: go tool pprof FILE)")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentFlags().StringVar(&env.memProfile, "memprofile", "", "write a pprof allocation profile of the command to `FILE` (for wolong's developers: go tool pprof -sample_index=alloc_space FILE)")
	_ = root.PersistentFlags().MarkHidden("memprofile")
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		if env.wide && env.stdout != nil {
			env.Out = env.stdout
		}
		if env.cpuProfile != "" {
			stop, err := startCPUProfile(env.cpuProfile)
			if err != nil {
				return err
			}
			env.stopCPU = stop
		}
		if env.memProfile != "" {
			stop, err := startMemProfile(env.memProfile)
			if err != nil {
				return err
			}
			env.stopMem = stop
		}
		return nil
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageErr{err} })
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		fillPresets(c)
		help(c, args)
	})
	for _, c := range commands {
		if only == "" || c.name == only {
			root.AddCommand(c.mk(env))
		}
	}
	if only == "" {
		root.AddCommand(newHelpEnvironment())
	}
	return root
}

// usageErr marks a command-line mistake: exit status 2.
type usageErr struct{ error }

func (e usageErr) Unwrap() error { return e.error }

// usageArgs wraps a cobra argument check so its failures are usage errors.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			return usageErr{err}
		}
		return nil
	}
}

// Usagef returns a usage error (exit status 2) for a bad flag value.
func Usagef(format string, args ...any) error { return usageErr{fmt.Errorf(format, args...)} }

// Main runs wolong with args and returns the process exit status: 0 on
// success, 1 on failure, 2 on a usage error. Errors are printed as one
// line on stderr. A panic is caught and reported as an internal error.
func Main(args []string, stdout, stderr io.Writer) (status int) {
	env := &Env{Out: report.FitTo(stdout, outputWidth(stdout)), Err: stderr, stdout: stdout, process: newProcess(os.Getenv)}
	if f, ok := stderr.(*os.File); ok {
		env.ErrIsTerminal = term.IsTerminal(int(f.Fd()))
	}
	env.Progress = &progress{w: stderr, on: env.ErrIsTerminal}
	defer restoreMemoryLimit()()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "wolong: internal error: %s\n", oneLine(fmt.Sprint(r)))
			status = 3
		}
	}()
	root := newRoot(env, commandRun(args))
	root.SetArgs(args)
	err := root.Execute()
	for _, stop := range []func() error{env.stopCPU, env.stopMem} {
		if stop == nil {
			continue
		}
		if perr := stop(); err == nil {
			err = perr
		}
	}
	if ferr := report.Flush(env.Out); err == nil {
		err = ferr
	}
	if err == nil {
		// a failed command's error is its message; a heap near the
		// limit shows there only as slowness, so it is said here
		if w := env.process.heapWarning(readHeap); w != "" {
			env.warn([]string{w})
		}
		return 0
	}
	fmt.Fprintf(stderr, "wolong: %s\n", oneLine(err.Error()))
	return exitStatus(err)
}

// exitStatus is the exit status of a command that failed with err: 2
// for a usage error, an exitErr's own, else 1.
func exitStatus(err error) int {
	var ue usageErr
	if errors.As(err, &ue) || isCobraUsage(err) {
		return 2
	}
	var ee exitErr
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// exitErr carries a specific exit status with an already-printed cause
// (e.g. verify's mismatch: status 1 with the table on stdout).
type exitErr struct {
	code int
	msg  string
}

func (e exitErr) Error() string { return e.msg }

func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "invalid argument"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// maxLine bounds a printed error or warning (a hostile model can make a
// message quote a million attribute values).
const maxLine = 1000

// oneLine folds a message onto one printable line of at most maxLine bytes
// (plus the note saying how much was cut): line breaks become "; " and any
// other control character (names in a model may hold ESC, DEL, NUL) or
// invalid UTF-8 byte is written escaped, as \x1b or \u0085.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r", " ")
	s = strings.ReplaceAll(s, "\n", "; ")
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[0])
		case unicode.IsControl(r) && r != '\t':
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	s = b.String()
	if len(s) > maxLine {
		cut := maxLine
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = fmt.Sprintf("%s... (%d more bytes)", s[:cut], len(s)-cut)
	}
	return s
}

// completeONNX completes positional arguments with .onnx files.
func completeONNX(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return []string{"onnx"}, cobra.ShellCompDirectiveFilterFileExt
}

// notBuilt returns a command that exists in the tree but says plainly that
// its issue has not landed yet.
func notBuilt(use, short, issue string) *cobra.Command {
	return &cobra.Command{
		Use:               use,
		Short:             short + " (not built yet)",
		Args:              usageArgs(cobra.ArbitraryArgs),
		ValidArgsFunction: completeONNX,
		RunE: func(c *cobra.Command, args []string) error {
			return fmt.Errorf("%s is not built yet: it lands with %s", c.Name(), issue)
		},
	}
}
