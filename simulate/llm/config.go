package llm

// This file reads a decoder architecture from a JSON config, for the
// architectures no preset names.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wolong-dev/wolong/internal/strictjson"
)

// maxConfigBytes bounds a transformer config: a real one is a few hundred
// bytes.
const maxConfigBytes = 1 << 20

// ReadTransformer decodes a decoder architecture from JSON: Transformer's
// fields under their json names ("layers", "hidden", "heads", "kv_heads",
// "head_dim", "ffn", "gated", "vocab", "seq", "experts", "top_k",
// "tied_embeddings", "bias", "rms_norm", "learned_positions", "dropout",
// "name", "source"). kv_heads defaults to heads (multi-head attention).
// An unknown field is an error: a misspelt "kv_head" must not silently
// plan multi-head attention. The result is validated.
func ReadTransformer(r io.Reader) (*Transformer, error) {
	var t Transformer
	if err := strictjson.Decode(r, maxConfigBytes, &t); err != nil {
		return nil, fmt.Errorf("transformer config: %w", err)
	}
	if t.KVHeads == 0 {
		t.KVHeads = t.Heads
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

// Architecture returns the preset called nameOrFile or, when no preset
// has that name and it ends in ".json", the architecture that file
// describes (ReadTransformer; a config without a name takes the file's).
func Architecture(nameOrFile string) (*Transformer, error) {
	if !strings.HasSuffix(strings.ToLower(nameOrFile), ".json") {
		return TransformerPreset(nameOrFile)
	}
	f, err := os.Open(nameOrFile)
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	defer f.Close()
	t, err := ReadTransformer(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", nameOrFile, err)
	}
	if t.Name == "" {
		t.Name = strings.TrimSuffix(filepath.Base(nameOrFile), filepath.Ext(nameOrFile))
	}
	return t, nil
}
