package report

import (
	"bytes"
	"fmt"
	"io"
)

// fillSlots writes page with each "<!--@NAME-->" slot replaced by
// parts[NAME]. The parts are not searched for slots (a script may contain
// anything); an unknown slot is an error, so a typo in page.html fails the
// tests instead of shipping a page without its script.
func fillSlots(w io.Writer, page []byte, parts map[string][]byte) error {
	open, end := []byte("<!--@"), []byte("-->")
	for {
		i := bytes.Index(page, open)
		if i < 0 {
			_, err := w.Write(page)
			return err
		}
		j := bytes.Index(page[i:], end)
		if j < 0 {
			return fmt.Errorf("html: unterminated slot in page")
		}
		name := string(page[i+len(open) : i+j])
		part, ok := parts[name]
		if !ok {
			return fmt.Errorf("html: unknown slot %q in page", name)
		}
		if _, err := w.Write(page[:i]); err != nil {
			return err
		}
		if _, err := w.Write(part); err != nil {
			return err
		}
		page = page[i+j+len(end):]
	}
}
