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

// Names lists the preset names in catalogue order: every name --hw
// accepts besides hardware files.
func Names() []string {
	ds := devices()
	out := make([]string, len(ds))
	for i, h := range ds {
		out[i] = h.Name
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

// Preset returns a copy of the preset called name (case-insensitive).
func Preset(name string) (*Hardware, error) {
	c, err := loadCatalogue()
	if err != nil {
		return nil, err
	}
	for _, h := range c.devices {
		if strings.EqualFold(h.Name, name) {
			return h.Clone(), nil
		}
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
