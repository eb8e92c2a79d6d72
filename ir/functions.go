package ir

// functionIndex maps (domain, name) to a model's functions for
// Model.Function, which inference, the cost model and the fused-kernel
// import call for every node: a scan of the list per call was
// O(nodes x functions) on an exported model (a function per fused
// kernel). It is rebuilt whenever Functions is no longer the slice it was
// built from (another length or backing array: append, truncation,
// replacement); code that overwrites an element of Functions in place, or
// renames a function, must not rely on a lookup made before.
type functionIndex struct {
	byKey map[[2]string]*Function
	n     int
	first **Function
}

// Function returns the model-local function (domain, name), or nil (the
// first of that key, as a scan of Functions finds it).
func (m *Model) Function(domain, name string) *Function {
	if len(m.Functions) <= 8 {
		for _, f := range m.Functions {
			if f.Domain == domain && f.Name == name {
				return f
			}
		}
		return nil
	}
	x, _ := m.fns.Load().(*functionIndex)
	if x == nil || x.n != len(m.Functions) || x.first != &m.Functions[0] {
		// goroutines that miss together build equal indexes
		x = &functionIndex{byKey: make(map[[2]string]*Function, len(m.Functions)), n: len(m.Functions), first: &m.Functions[0]}
		for _, f := range m.Functions {
			k := [2]string{f.Domain, f.Name}
			if _, dup := x.byKey[k]; !dup {
				x.byKey[k] = f
			}
		}
		m.fns.Store(x)
	}
	return x.byKey[[2]string{domain, name}]
}
