package cluster

// Caveats end every prediction of this package (Result, LLMResult,
// ServeResult): what it assumed where no source or measurement gave a
// number, and what it warns of (no warnings key when there are none).
type Caveats struct {
	Assumptions []string `json:"assumptions"`
	Warnings    []string `json:"warnings,omitempty"`
}
