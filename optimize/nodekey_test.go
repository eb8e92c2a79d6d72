package optimize

// Every test of this package checks nodeTrialKey against the key of the
// extracted model (verifyNodeKey).
func init() { verifyNodeKeys = true }
