package pipeline

// This file implements the last stage: a simulation of an inferred or
// optimized model on one device, or the single-GPU training profile the
// cluster model starts from.

import (
	"fmt"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate"
	"github.com/wolong-dev/wolong/simulate/cluster"
	"github.com/wolong-dev/wolong/simulate/cost"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// Stage is a model a stage returned: *Inferred or *Optimized.
type Stage interface {
	// Graph is the stage's model (read only).
	Graph() *ir.Model
	inference() *Inferred
}

// Graph is the inferred model.
func (f *Inferred) Graph() *ir.Model { return f.Model }

func (f *Inferred) inference() *Inferred { return f }

// SimOptions steer Simulate.
type SimOptions struct {
	HW      *hw.Hardware
	Streams int           // device streams (0: 1)
	Mode    simulate.Mode // inference ("") or train
	Cost    cost.Options
}

// Simulated is a simulated run of a stage's model.
type Simulated struct {
	*simulate.Result
	From Stage
}

// Simulate simulates s's model on opt.HW, at the batch it was inferred
// with; s is left as it was.
func Simulate(s Stage, opt SimOptions) (*Simulated, error) {
	if opt.HW == nil {
		return nil, fmt.Errorf("no hardware")
	}
	r, err := simulate.Run(s.Graph(), opt.HW, simulate.Options{Streams: opt.Streams, Mode: opt.Mode, Batch: s.inference().Batch, Cost: opt.Cost})
	if err != nil {
		return nil, err
	}
	return &Simulated{Result: r, From: s}, nil
}

// ClusterProfile simulates one training step of s's model on one GPU
// (opt.HW) and extracts what the cluster model needs (cluster.NewProfile),
// at the batch s was inferred with.
func ClusterProfile(s Stage, opt SimOptions) (*cluster.Profile, error) {
	return cluster.NewProfile(s.Graph(), opt.HW, cluster.ProfileOptions{Batch: s.inference().Batch,
		Sim: simulate.Options{Streams: opt.Streams, Cost: opt.Cost}})
}
