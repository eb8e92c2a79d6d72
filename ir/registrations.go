package ir

// registerAll makes this package's registrations, in file order. The
// table that reads them calls it on first use instead of init running
// them at start-up: a command that never evaluates, infers or costs a
// node (wolong --help, hw show) does not pay for building them.
// TestNoInitRegistrations fails on a func init in the package.
func registerAll() {
	registerInferAttention()
	registerInferControl()
	registerInferElementwise()
	registerInferGather()
	registerInferGenerator()
	registerInferMatmul()
	registerInferMl()
	registerInferNn()
	registerInferQuant()
	registerInferReduce()
	registerInferRnn()
	registerInferSequence()
	registerInferShape()
}
