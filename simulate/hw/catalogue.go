package hw

// This file implements the built-in catalogue: the device presets
// (presets.json: GPUs and CPUs) and the node presets (nodes.json: the
// standard machine of a GPU), embedded and parsed on first use, so that a
// command that never reads a preset pays nothing at start-up. A broken
// embedded file is a build defect that TestEmbeddedCatalogue reports; at
// run time it surfaces as an error from Preset and Resolve.

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/wolong-dev/wolong/internal/strictjson"
)

//go:embed presets.json
var presetsJSON []byte

//go:embed nodes.json
var nodesJSON []byte

// Node is the standard machine of a GPU preset: how many scale-out NICs
// (rails) it has per GPU and the network preset (simulate/cluster) they
// run. The JSON form is one entry of nodes.json.
type Node struct {
	GPU         string   `json:"gpu"`
	NICsPerGPU  float64  `json:"nics_per_gpu"`
	Network     string   `json:"network"`
	Description string   `json:"description"`
	Sources     []string `json:"sources"`
}

// NICs is the node's NICs for a machine of gpus GPUs (at least one).
func (n *Node) NICs(gpus int) int {
	return max(1, int(math.Round(n.NICsPerGPU*float64(gpus))))
}

// catalogue is the parsed embedded presets.
type catalogue struct {
	devices []*Hardware
	nodes   []Node
}

// loadCatalogue parses and checks the embedded files once.
var loadCatalogue = sync.OnceValues(func() (*catalogue, error) {
	var c catalogue
	if err := strictjson.Decode(bytes.NewReader(presetsJSON), int64(len(presetsJSON)), &c.devices); err != nil {
		return nil, fmt.Errorf("embedded presets: %v", err)
	}
	seen := map[string]bool{}
	for _, h := range c.devices {
		if err := h.Validate(); err != nil {
			return nil, fmt.Errorf("embedded preset %s: %v", h.Name, err)
		}
		if k := strings.ToLower(h.Name); seen[k] || !validName(h.Name) {
			return nil, fmt.Errorf("embedded preset name %q repeated or not a valid name", h.Name)
		}
		seen[strings.ToLower(h.Name)] = true
	}
	if err := strictjson.Decode(bytes.NewReader(nodesJSON), int64(len(nodesJSON)), &c.nodes); err != nil {
		return nil, fmt.Errorf("embedded node presets: %v", err)
	}
	for _, n := range c.nodes {
		if !(n.NICsPerGPU > 0) || n.Network == "" || len(n.Sources) == 0 || !seen[strings.ToLower(n.GPU)] {
			return nil, fmt.Errorf("embedded node preset %q: want a GPU preset, nics_per_gpu > 0, a network and sources", n.GPU)
		}
	}
	return &c, nil
})

// devices returns the device presets (nil when the embedded file is
// broken; Preset reports why).
func devices() []*Hardware {
	c, err := loadCatalogue()
	if err != nil {
		return nil
	}
	return c.devices
}

// rawPreset is one entry of presets.json, not yet decoded.
type rawPreset struct {
	name string
	raw  []byte
}

// presetIndex splits presets.json into its entries and reads each one's
// name without decoding the rest (splitEntries): a command that uses one
// preset (most do) decodes that one alone. Decoding all of them with
// encoding/json was a third of `wolong profile`'s start-up (issue 25).
// loadCatalogue still decodes and checks them all for the commands that
// list them, and TestEmbeddedCatalogue checks that both agree.
var presetIndex = sync.OnceValues(func() ([]rawPreset, error) {
	out, err := splitEntries(presetsJSON)
	if err != nil {
		return nil, fmt.Errorf("embedded presets: %v", err)
	}
	return out, nil
})

// splitEntries splits a JSON array of objects, each of whose first key is
// "name" with a string value free of escapes (presets.json's layout), into
// its entries, by bracket depth outside strings: a byte loop, where
// encoding/json's scanner took milliseconds. It refuses any other layout.
func splitEntries(b []byte) ([]rawPreset, error) {
	i := 0
	ws := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
			i++
		}
	}
	ws()
	if i >= len(b) || b[i] != '[' {
		return nil, fmt.Errorf("not a JSON array")
	}
	i++
	var out []rawPreset
	for {
		ws()
		if i < len(b) && b[i] == ']' {
			i++
			ws()
			if i != len(b) {
				return nil, fmt.Errorf("data after the array")
			}
			return out, nil
		}
		if len(out) > 0 {
			if i >= len(b) || b[i] != ',' {
				return nil, fmt.Errorf("entry %d: want a comma", len(out)+1)
			}
			i++
			ws()
		}
		start := i
		if i >= len(b) || b[i] != '{' {
			return nil, fmt.Errorf("entry %d: not an object", len(out)+1)
		}
		depth, inStr := 0, false
		for ; i < len(b); i++ {
			c := b[i]
			switch {
			case inStr && c == '\\':
				i++
			case c == '"':
				inStr = !inStr
			case inStr:
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if i >= len(b) {
			return nil, fmt.Errorf("entry %d: unterminated", len(out)+1)
		}
		i++
		entry := b[start:i]
		rest := bytes.TrimLeft(entry[1:], " \n\t\r")
		rest, ok := bytes.CutPrefix(rest, []byte(`"name"`))
		if ok {
			rest = bytes.TrimLeft(rest, " \n\t\r")
			rest, ok = bytes.CutPrefix(rest, []byte(":"))
		}
		if ok {
			rest = bytes.TrimLeft(rest, " \n\t\r")
			rest, ok = bytes.CutPrefix(rest, []byte(`"`))
		}
		end := bytes.IndexByte(rest, '"')
		if !ok || end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
			return nil, fmt.Errorf("entry %d: want \"name\" as its first key, a plain string", len(out)+1)
		}
		out = append(out, rawPreset{string(rest[:end]), entry})
	}
}

// Names lists the preset names in catalogue order: every name --hw
// accepts besides hardware files.
func Names() []string {
	idx, err := presetIndex()
	if err != nil {
		return nil
	}
	out := make([]string, len(idx))
	for i, p := range idx {
		out[i] = p.name
	}
	return out
}

// SortedNames returns the preset names sorted alphabetically.
func SortedNames() []string {
	n := Names()
	sort.Strings(n)
	return n
}

// Presets returns copies of all presets in catalogue order.
func Presets() []*Hardware {
	ds := devices()
	out := make([]*Hardware, len(ds))
	for i, h := range ds {
		out[i] = h.Clone()
	}
	return out
}

// Preset returns a copy of the preset called name (case-insensitive). It
// decodes and checks that entry of presets.json alone (presetIndex);
// TestEmbeddedCatalogue checks the whole file.
func Preset(name string) (*Hardware, error) {
	idx, err := presetIndex()
	if err != nil {
		return nil, err
	}
	for _, p := range idx {
		if !strings.EqualFold(p.name, name) {
			continue
		}
		var h Hardware
		if err := strictjson.Decode(bytes.NewReader(p.raw), int64(len(p.raw)), &h); err != nil {
			return nil, fmt.Errorf("embedded preset %s: %v", p.name, err)
		}
		if err := h.Validate(); err != nil {
			return nil, fmt.Errorf("embedded preset %s: %v", p.name, err)
		}
		return &h, nil
	}
	return nil, fmt.Errorf("no preset %q (have %s)", name, strings.Join(Names(), ", "))
}

// NodePreset returns the standard machine of the GPU preset called gpu
// (case-insensitive), or nil when there is none.
func NodePreset(gpu string) *Node {
	c, err := loadCatalogue()
	if err != nil {
		return nil
	}
	for i := range c.nodes {
		if strings.EqualFold(c.nodes[i].GPU, gpu) {
			n := c.nodes[i]
			n.Sources = append([]string(nil), n.Sources...)
			return &n
		}
	}
	return nil
}

// Nodes returns copies of the node presets in catalogue order.
func Nodes() []Node {
	c, err := loadCatalogue()
	if err != nil {
		return nil
	}
	out := make([]Node, len(c.nodes))
	for i, n := range c.nodes {
		n.Sources = append([]string(nil), n.Sources...)
		out[i] = n
	}
	return out
}
