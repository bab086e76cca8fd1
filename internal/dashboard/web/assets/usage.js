// The session header's usage (issue 14): tokens of the session's model
// responses and, when config.yaml prices its model, their cost. It comes
// with session.info (resume) and with every session.info event.

const n = (x) => Number(x || 0).toLocaleString('en-US');

// usageText is one line for a usage object, '' before any token was used.
export function usageText(u) {
  if (!u || !u.total_tokens) return u && u.cost_usd != null ? `0 tokens · ${usd(u.cost_usd)}` : '';
  let s = `${n(u.total_tokens)} tokens (${n(u.prompt_tokens)} in`;
  if (u.cached_tokens) s += ` · ${n(u.cached_tokens)} cached`;
  s += ` · ${n(u.completion_tokens)} out)`;
  if (u.cost_usd != null) s += ` · ${usd(u.cost_usd)}`;
  return s;
}

// usd is what protocol.FormatUSD writes: cents from a dollar up, else four
// decimals.
export function usd(x) {
  return x >= 1 ? `$${x.toFixed(2)}` : `$${x.toFixed(4)}`;
}

// showUsage puts u into the header node (hidden when there is nothing).
export function showUsage(node, u) {
  const t = usageText(u);
  node.textContent = t;
  node.hidden = !t;
  node.title = u && u.cost_usd == null && t ? 'no price for this model in config.yaml pricing' : '';
}
