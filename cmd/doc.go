// Package cmd wires wolong's command line: one file per command, each
// parsing flags into options and calling one function of the packages
// below it (importer, ir, optimize, simulate, report). No logic lives here
// beyond flag conversion.
package cmd
