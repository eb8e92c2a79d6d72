package cmd

import "testing"

// TestOneLine: error messages reach stderr as one printable line whatever
// bytes a model's names hold.
func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain message", "plain message"},
		{"  two\nlines\n", "two; lines"},
		{"a\r\nb", "a ; b"},
		{"node Relu\x1b[2J\x7f_y: bad", `node Relu\x1b[2J\x7f_y: bad`},
		{"op a\x00b", `op a\x00b`},
		{"tab\tstays", "tab\tstays"},
		{"bad \xff byte", `bad \xff byte`},
		{"c1 \u0085 control", `c1 \u0085 control`},
		{"unicode é 名前 ok", "unicode é 名前 ok"},
	} {
		if got := oneLine(tc.in); got != tc.want {
			t.Errorf("oneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
