// Unit check of the dashboard's visible escaping (dom.js), driven by
// visible_test.go: no browser, a stub document. Exits non-zero on failure.
import assert from 'node:assert/strict';

const made = [];
globalThis.document = {
  createElement(tag) {
    const node = {
      tag, textContent: '', children: [], dataset: {},
      append(c) { this.children.push(c); },
      setAttribute() {}, addEventListener() {},
    };
    made.push(node);
    return node;
  },
};
const { el, visible, setText } = await import('../../internal/dashboard/web/assets/dom.js');

assert.equal(visible('rm -rf ~\x1b[2K\recho ok'), 'rm -rf ~\\x1b[2K\\recho ok');
assert.equal(visible('invoice\u202etxt.exe \u2066\u2069\u200e\u200f\u061c'), 'invoice\\u202etxt.exe \\u2066\\u2069\\u200e\\u200f\\u061c');
assert.equal(visible('a\nb\tc\x7f\u009b'), 'a\\nb\\tc\\x7f\\u009b');
assert.equal(visible('a\nb\tc\x07', true), 'a\nb\tc\\x07');
assert.equal(visible('héllo 世界'), 'héllo 世界');

// Every text set through el() or setText is escaped, multi-line kept.
const pre = el('pre', { text: 'cat x\x1b]0;pwned\x07\nnext' });
assert.equal(pre.textContent, 'cat x\\x1b]0;pwned\\x07\nnext');
const item = el('div', {}, 'title\u202eexe');
assert.equal(item.children[0], 'title\\u202eexe');
const node = { textContent: '' };
setText(node, 'out\r\x1b[2K');
assert.equal(node.textContent, 'out\\r\\x1b[2K');
console.log('VISIBLE OK');
