package cluster

import (
	"testing"
)

// TestParseNames runs the flag parsers built on parseName on
// good spellings (any case, defaults) and bad ones, checking the value or
// the whole error line.
func TestParseNames(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func() (string, error)
		want string // value, or the error when wantErr
		err  bool
	}{
		{"transport case", func() (string, error) { r, err := ParseTransport("RDMA"); return string(r), err }, "rdma", false},
		{"transport bad", func() (string, error) { r, err := ParseTransport("pigeon"); return string(r), err }, `unknown transport "pigeon" (want grpc-tcp, grpc-rdma or rdma)`, true},
	} {
		got, err := c.run()
		if c.err {
			if err == nil || err.Error() != c.want {
				t.Errorf("%s: error %v, want %q", c.name, err, c.want)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}
