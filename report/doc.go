// Package report turns results into what people and scripts read: tables
// (tablewriter), JSON, Chrome-trace timelines, Graphviz DOT and plots.
// Every writer takes an io.Writer and sorts deterministically, so the same
// input gives byte-identical output.
package report
