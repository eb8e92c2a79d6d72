package eval

// registerAll makes this package's registrations, in file order. The
// table that reads them calls it on first use instead of init running
// them at start-up: a command that never evaluates, infers or costs a
// node (wolong --help, hw show) does not pay for building them.
// TestNoInitRegistrations fails on a func init in the package.
func registerAll() {
	registerAttention()
	registerCast()
	registerContrib()
	registerContribAttention()
	registerContribAttention2()
	registerContribFused()
	registerContribGqa()
	registerContribMha()
	registerControl()
	registerConv()
	registerDeform()
	registerDft()
	registerDft2()
	registerElementwise()
	registerFlex()
	registerGather()
	registerLoss()
	registerMatmul()
	registerMisc()
	registerMl()
	registerMl2()
	registerNorm()
	registerQuant()
	registerRecurrentAttn()
	registerReduce()
	registerResize()
	registerRnn()
	registerRoialign()
	registerSample()
	registerShape()
	registerTfidf()
	registerTraining()
}
