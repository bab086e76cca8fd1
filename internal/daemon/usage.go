package daemon

import (
	"github.com/hermes-gateway/hermes/internal/authority"
	"github.com/hermes-gateway/hermes/internal/config"
)

// pricing converts config.yaml pricing to the authority's price table; an
// unset cached_input prices cached tokens like the others.
func pricing(c map[string]config.Price) map[string]authority.Price {
	out := make(map[string]authority.Price, len(c))
	for name, p := range c {
		cached := p.Input
		if p.CachedInput != nil {
			cached = *p.CachedInput
		}
		out[name] = authority.Price{Input: p.Input, Output: p.Output, CachedInput: cached}
	}
	return out
}
