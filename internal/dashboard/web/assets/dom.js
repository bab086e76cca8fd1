// Tiny DOM helpers: every text goes through textContent (no innerHTML),
// and through visible(): text from the gateway, the model or a tool is shown
// with its control and bidi characters escaped, so a command, path, title or
// tool output cannot reorder or disguise what the operator reads.

export const $ = (id) => document.getElementById(id);

// The characters protocol.Visible escapes (Go, internal/protocol/visible.go):
// C0, DEL, C1, and the bidi marks, embeddings, overrides and isolates.
const SPOOFING = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// visible returns s with every SPOOFING character written as an escape
// (`\x1b`, `\u202e`); keepLines keeps \n and \t (multi-line output).
export function visible(s, keepLines = false) {
  if (s == null) return '';
  return String(s).replace(SPOOFING, (c) => {
    if (keepLines && (c === '\n' || c === '\t')) return c;
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    const n = c.charCodeAt(0);
    return n < 0x80 ? '\\x' + n.toString(16).padStart(2, '0') : '\\u' + n.toString(16).padStart(4, '0');
  });
}

// setText shows untrusted text in node (multi-line kept).
export function setText(node, s) { node.textContent = visible(s, true); }

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') node.className = v;
    else if (k === 'text') setText(node, v);
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(typeof c === 'string' ? visible(c, true) : c);
  return node;
}

export function when(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return isNaN(d) ? '' : d.toLocaleString();
}

export function pretty(raw) {
  if (raw == null) return '';
  if (typeof raw === 'string') {
    try { return JSON.stringify(JSON.parse(raw), null, 2); } catch { return raw; }
  }
  return JSON.stringify(raw, null, 2);
}

// randomID is prefix and 128 random bits in hex: a request or submission id.
export function randomID(prefix) {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return prefix + Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
