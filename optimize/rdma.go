package optimize

// This file implements the rdma pass (issue 6): it applies a cluster
// placement to the IR. Every node is tagged with its device; under a
// pipeline (model-parallel) strategy every edge that crosses devices gets an
// explicit transfer node (wolong:RdmaWrite, wolong:RdmaRead or wolong:Copy)
// whose "body" is an Identity, so the evaluator and the cost model treat it
// as the identity it is. Data-parallel strategies cut no edge: their
// parameter and gradient transfers live in the placement plan only.

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// DeviceKey is the node metadata key the rdma pass writes the device under.
const DeviceKey = "wolong.device"

// Replicated is the device tag of a node a data-parallel strategy runs on
// every GPU.
const Replicated = "replicated"

// Transfer mechanisms (the strings simulate/cluster uses).
const (
	MechRDMAWrite    = "rdma-write"         // static shape: one-sided zero-copy write
	MechMetadataRead = "rdma-metadata-read" // dynamic shape: shape message, then a one-sided read
	MechPeerCopy     = "peer-copy"          // GPU to GPU inside a machine
)

// Placement is what the rdma pass applies.
type Placement struct {
	Strategy string
	// Pipeline: the graph is split across devices and cut edges get
	// transfer nodes; otherwise every node is replicated.
	Pipeline bool
	// Devices maps node names to devices ("m0/gpu1").
	Devices map[string]string
	// Mechanisms maps "src->dst" device pairs to the mechanism a static
	// tensor crosses with (missing: peer-copy inside a machine, rdma-write
	// across machines).
	Mechanisms map[string]string
	// Fallbacks maps "src->dst" pairs whose transfers fell back to a copy
	// to the reason (the transfer node's "reason" attribute).
	Fallbacks map[string]string
}

// Placer computes the placement of a model as it stands when the rdma pass
// runs (the caller wires simulate/cluster in, as Predictor wires simulate).
type Placer interface {
	Place(m *ir.Model) (*Placement, error)
}

// rdmaPlace is the rdma pass.
func rdmaPlace(c *Context) ([]Rewrite, error) {
	if c.Opt.Placer == nil {
		return nil, nil
	}
	pl, err := c.Opt.Placer.Place(c.Model)
	if err != nil {
		return nil, err
	}
	if pl == nil {
		return nil, fmt.Errorf("no placement")
	}
	g := c.Graph()
	if !pl.Pipeline {
		for _, n := range g.Nodes {
			setMeta(n, DeviceKey, Replicated)
		}
		return nil, nil
	}
	dev := assignDevices(g, pl.Devices)
	nodes := append([]*ir.Node(nil), g.Nodes...)
	var rw []Rewrite
	for _, n := range nodes {
		src := dev[n]
		setMeta(n, DeviceKey, src)
		for _, v := range n.Outputs {
			if v == nil {
				continue
			}
			byDst := map[string][]ir.Use{}
			for _, u := range v.Uses {
				if u.Node == nil || u.Node.Graph != g {
					continue // captured by a subgraph: stays with its owner
				}
				if d := dev[u.Node]; d != src {
					byDst[d] = append(byDst[d], u)
				}
			}
			dsts := make([]string, 0, len(byDst))
			for d := range byDst {
				dsts = append(dsts, d)
			}
			sort.Strings(dsts)
			for _, d := range dsts {
				t := insertTransfer(c, g, v, src, d, pl)
				for _, u := range byDst[d] {
					setInput(u.Node, u.Index, t.Outputs[0])
				}
				rw = append(rw, Rewrite{Before: []string{n.Name}, After: []string{t.Name},
					Remark: fmt.Sprintf("%s %s -> %s, %s, %s", v.Name, src, d, t.AttrString("mechanism", ""), bytesText(t.AttrInt("bytes", -1)))})
			}
		}
	}
	if len(rw) > 0 && c.Model.Opset(ir.FusedDomain) == 0 {
		c.Model.Opsets = append(c.Model.Opsets, ir.OpsetID{Domain: ir.FusedDomain, Version: 1})
	}
	return rw, nil
}

// assignDevices gives every node of g a device: the placement's, else the
// device of its first consumer, else of its first input's producer, else
// the first device in topological order.
func assignDevices(g *ir.Graph, devices map[string]string) map[*ir.Node]string {
	dev := map[*ir.Node]string{}
	first := ""
	for _, n := range g.Nodes {
		if d, ok := devices[n.Name]; ok && d != "" {
			dev[n] = d
			if first == "" {
				first = d
			}
		}
	}
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		if dev[n] != "" {
			continue
		}
	outs:
		for _, v := range n.Outputs {
			if v == nil {
				continue
			}
			for _, u := range v.Uses {
				if d := dev[u.Node]; d != "" && u.Node.Graph == g {
					dev[n] = d
					break outs
				}
			}
		}
	}
	for _, n := range g.Nodes {
		if dev[n] != "" {
			continue
		}
		dev[n] = first
		for _, v := range n.Inputs {
			if v != nil && v.Producer != nil && dev[v.Producer] != "" {
				dev[n] = dev[v.Producer]
				break
			}
		}
	}
	return dev
}

// insertTransfer adds a transfer node moving v from src to dst.
func insertTransfer(c *Context, g *ir.Graph, v *ir.Value, src, dst string, pl *Placement) *ir.Node {
	mech := pl.Mechanisms[src+"->"+dst]
	if mech == "" {
		mech = MechRDMAWrite
		if machineOf(src) == machineOf(dst) {
			mech = MechPeerCopy
		}
	}
	bytes := int64(-1)
	static := v.Type.IsTensor() && v.Type.Shape.IsStatic()
	if static {
		if n, ok := v.Type.Shape.NumElements(); ok {
			bytes = v.Type.DType.StorageBytes(n)
		}
	}
	if mech == MechRDMAWrite && !static {
		mech = MechMetadataRead
	}
	op := "Copy"
	switch mech {
	case MechRDMAWrite:
		op = "RdmaWrite"
	case MechMetadataRead:
		op = "RdmaRead"
	}
	name := c.newName(strings.ToLower(op))
	t := &ir.Node{Name: name, Op: op, Domain: ir.FusedDomain, Inputs: []*ir.Value{v}}
	out := g.NewValue(c.newName(v.Name+"@"+dst), v.Type.Clone())
	out.SetKnown(v.Known())
	t.Outputs = []*ir.Value{out}
	body := ir.NewGraph(name + "_body")
	body.Parent, body.ParentNode = g, t
	in := body.AddInput(v.Name, v.Type.Clone())
	id := body.AddNode("Identity", "", name+"_identity", []*ir.Value{in}, []string{out.Name})
	id.Outputs[0].Type = v.Type.Clone()
	id.Outputs[0].SetKnown(v.Known())
	body.Outputs = []*ir.Value{id.Outputs[0]}
	t.Attrs = []*ir.Attr{
		{Name: ir.FusedBodyAttr, Type: ir.AttrGraph, G: body},
		{Name: "mechanism", Type: ir.AttrString, S: []byte(mech)},
		{Name: "bytes", Type: ir.AttrInt, I: bytes},
		{Name: "src", Type: ir.AttrString, S: []byte(src)},
		{Name: "dst", Type: ir.AttrString, S: []byte(dst)},
	}
	if why := pl.Fallbacks[src+"->"+dst]; why != "" {
		t.Attrs = append(t.Attrs, &ir.Attr{Name: "reason", Type: ir.AttrString, S: []byte(why)})
	}
	setMeta(t, DeviceKey, dst)
	g.AttachNode(t)
	return t
}

// machineOf returns the "m<k>" part of a device name.
func machineOf(d string) string {
	if i := strings.IndexByte(d, '/'); i >= 0 {
		return d[:i]
	}
	return d
}

// setMeta sets node metadata key to val.
func setMeta(n *ir.Node, key, val string) {
	md := slices.Clone(n.Metadata()) // Info is replaced, never changed in place
	if i := slices.IndexFunc(md, func(p ir.StringPair) bool { return p.Key == key }); i >= 0 {
		md[i].Value = val
	} else {
		md = append(md, ir.StringPair{Key: key, Value: val})
	}
	n.SetInfo(n.Overload(), n.Doc(), md)
}

func bytesText(b int64) string {
	if b < 0 {
		return "dynamic size"
	}
	return fmt.Sprintf("%d B", b)
}
