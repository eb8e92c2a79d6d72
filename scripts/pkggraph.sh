#!/usr/bin/env bash
# Prints wolong's package graph: each package and the module packages its
# non-test files import (docs/architecture.md quotes it).
set -euo pipefail
cd "$(dirname "$0")/.."
go list -f '{{.ImportPath}}:{{range .Imports}} {{.}}{{end}}' ./... |
  sed 's#github.com/wolong-dev/wolong/##g; s#^github.com/wolong-dev/wolong:#main:#' |
  awk -F: '{printf "%s:", $1; n = split($2, a, " ");
    for (i = 1; i <= n; i++) if (a[i] !~ /\./ && a[i] ~ /^(cmd|pipeline|importer|ir|eval|optimize|simulate|report|internal)/) printf " %s", a[i];
    print ""}'
