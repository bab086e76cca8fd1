// A small markdown subset for assistant messages, built as DOM nodes: the
// model's text only ever becomes text nodes (through visible()), never HTML,
// so a <script> or <img onerror> in an answer shows as the characters it is.
// Blocks: headings (#..######), fenced code (```), lists (-, *, +, 1.),
// quotes (>), rules (---) and paragraphs. Inline: `code`, **bold**, *em*,
// _em_, ~~strike~~ and [links](https://…) (http and https only; anything
// else stays text).
import { visible } from './dom.js';

// renderMarkdown returns a fragment for text.
export function renderMarkdown(text) {
  const frag = document.createDocumentFragment();
  const lines = String(text ?? '').replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length;) i = block(frag, lines, i);
  return frag;
}

const FENCE = /^\s{0,3}(```|~~~)\s*([\w+-]*)\s*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const ORDERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;

// block appends the block starting at lines[i] and returns the next index.
function block(parent, lines, i) {
  const line = lines[i];
  let m;
  if (!line.trim()) return i + 1;
  if ((m = FENCE.exec(line))) return fenced(parent, lines, i, m[1], m[2]);
  if ((m = HEADING.exec(line))) {
    parent.append(inline(node('h' + m[1].length), m[2]));
    return i + 1;
  }
  if (RULE.test(line)) { parent.append(node('hr')); return i + 1; }
  if (BULLET.test(line)) return list(parent, lines, i, 'ul', BULLET, 1);
  if ((m = ORDERED.exec(line))) {
    const ol = list(parent, lines, i, 'ol', ORDERED, 2);
    if (m[1] !== '1') parent.lastChild.setAttribute('start', String(Number(m[1])));
    return ol;
  }
  if (QUOTE.test(line)) {
    const quoted = [];
    while (i < lines.length && (m = QUOTE.exec(lines[i]))) { quoted.push(m[1]); i++; }
    const bq = node('blockquote');
    for (let j = 0; j < quoted.length;) j = block(bq, quoted, j);
    parent.append(bq);
    return i;
  }
  return paragraph(parent, lines, i);
}

function fenced(parent, lines, i, fence, lang) {
  const body = [];
  let j = i + 1;
  for (; j < lines.length && !lines[j].trim().startsWith(fence); j++) body.push(lines[j]);
  const code = node('code');
  code.textContent = visible(body.join('\n'), true);
  if (lang) code.dataset.lang = lang;
  parent.append(node('pre', code));
  return j + 1; // past the closing fence (or the end)
}

function list(parent, lines, i, tag, re, group) {
  const l = node(tag);
  let m;
  while (i < lines.length && (m = re.exec(lines[i]))) {
    const item = [m[group]];
    i++;
    // Indented continuation lines belong to the item.
    while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !re.test(lines[i])) item.push(lines[i++].trim());
    l.append(inline(node('li'), item.join(' ')));
  }
  parent.append(l);
  return i;
}

function paragraph(parent, lines, i) {
  const text = [];
  while (i < lines.length && lines[i].trim() && !startsBlock(lines[i])) text.push(lines[i++]);
  if (!text.length) text.push(lines[i++]); // a line no block rule took
  const p = node('p');
  text.forEach((t, k) => {
    if (k) p.append(node('br'));
    inline(p, t);
  });
  parent.append(p);
  return i;
}

function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || BULLET.test(line) || ORDERED.test(line) ||
    QUOTE.test(line) || RULE.test(line);
}

// Inline spans, tried in this order at each position; word: an underscore
// span, which neither opens nor closes inside a word.
const SPANS = [
  { re: /^`([^`]+)`/, make: (m) => text(node('code'), m[1]) },
  { re: /^\*\*(?=\S)(.+?)\*\*/, make: (m) => inline(node('strong'), m[1]) },
  { re: /^__(?=\S)(.+?)__(?![A-Za-z0-9])/, make: (m) => inline(node('strong'), m[1]), word: true },
  { re: /^~~(?=\S)(.+?)~~/, make: (m) => inline(node('del'), m[1]) },
  { re: /^\*(?=\S)([^*]+?)\*/, make: (m) => inline(node('em'), m[1]) },
  { re: /^_(?=\S)([^_]+?)_(?![A-Za-z0-9])/, make: (m) => inline(node('em'), m[1]), word: true },
  { re: /^\[([^\]]+)\]\(([^()\s]+)\)/, make: (m) => link(m[1], m[2]) },
];

// inline appends s to parent with its spans, and returns parent.
function inline(parent, s) {
  let plain = '';
  const flush = () => { if (plain) parent.append(visible(plain)); plain = ''; };
  for (let i = 0; i < s.length;) {
    const rest = s.slice(i);
    const c = rest[0];
    let done = false;
    if (c === '`' || c === '*' || c === '_' || c === '~' || c === '[') {
      const inWord = i > 0 && /[A-Za-z0-9]/.test(s[i - 1]);
      for (const sp of SPANS) {
        if (sp.word && inWord) continue; // snake_case is not emphasis
        const m = sp.re.exec(rest);
        if (!m) continue;
        const made = sp.make(m);
        if (!made) continue;
        flush();
        parent.append(made);
        i += m[0].length;
        done = true;
        break;
      }
    } else if (c === '\\' && rest.length > 1 && /[\\`*_~[\]()#>-]/.test(rest[1])) {
      plain += rest[1];
      i += 2;
      done = true;
    }
    if (!done) {
      // A delimiter run no span took is text as a whole: the second _ of
      // an unmatched __ does not open an emphasis of its own.
      let j = i + 1;
      if (c === '_' || c === '*' || c === '~') while (j < s.length && s[j] === c) j++;
      plain += s.slice(i, j);
      i = j;
    }
  }
  flush();
  return parent;
}

// link is an anchor for an http(s) URL, or null (the text stays as typed).
function link(label, href) {
  let url;
  try { url = new URL(href); } catch { return null; }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const a = node('a');
  a.href = url.href;
  a.rel = 'noopener noreferrer nofollow';
  a.target = '_blank';
  a.title = visible(url.href);
  return inline(a, label);
}

function node(tag, ...children) {
  const n = document.createElement(tag);
  n.append(...children);
  return n;
}

function text(n, s) { n.textContent = visible(s); return n; }
