// A simple terminal pane: `hermes chat` in a server-side PTY over
// /api/pty. Output is shown as text (escape sequences stripped); keys are
// sent as the bytes a terminal would send.
import { $ } from './dom.js';

const KEYS = {
  Enter: '\r', Backspace: '\x7f', Tab: '\t', Escape: '\x1b',
  ArrowUp: '\x1b[A', ArrowDown: '\x1b[B', ArrowRight: '\x1b[C', ArrowLeft: '\x1b[D',
  Home: '\x1b[H', End: '\x1b[F', Delete: '\x1b[3~',
};
const ANSI = /\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-B]|[=>78cDEHMNOZ])/g;
const MAX_CHARS = 200000;

export class Terminal {
  constructor() {
    this.ws = null;
    this.decoder = new TextDecoder();
    this.screen = $('term-screen');
    this.screen.addEventListener('keydown', (e) => this.key(e));
    this.screen.addEventListener('paste', (e) => { e.preventDefault(); this.send(e.clipboardData.getData('text')); });
  }

  open(sessionID) {
    $('terminal').hidden = false;
    if (this.ws) { this.screen.focus(); return; }
    this.screen.textContent = '';
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const q = new URLSearchParams({ cols: '100', rows: '30' });
    if (sessionID) q.set('resume', sessionID);
    const ws = new WebSocket(`${scheme}//${location.host}/api/pty?${q}`);
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => { $('term-state').textContent = 'connected'; this.screen.focus(); };
    ws.onmessage = (m) => this.output(m.data);
    ws.onclose = () => { $('term-state').textContent = 'ended'; this.ws = null; };
    this.ws = ws;
  }

  close() {
    if (this.ws) this.ws.close();
    $('terminal').hidden = true;
  }

  output(data) {
    if (typeof data === 'string') return; // control message ({"type":"exit"})
    let text = this.decoder.decode(data, { stream: true }).replace(ANSI, '');
    text = text.replace(/\r\n/g, '\n').replace(/\r/g, '');
    let cur = this.screen.textContent;
    for (const ch of text) {
      if (ch === '\b') cur = cur.slice(0, -1);
      else if (ch >= ' ' || ch === '\n' || ch === '\t') cur += ch;
    }
    this.screen.textContent = cur.length > MAX_CHARS ? cur.slice(-MAX_CHARS) : cur;
    this.screen.scrollTop = this.screen.scrollHeight;
  }

  key(e) {
    let s = KEYS[e.key];
    if (!s && e.ctrlKey && e.key.length === 1) s = String.fromCharCode(e.key.toUpperCase().charCodeAt(0) - 64);
    else if (!s && e.key.length === 1 && !e.metaKey) s = e.key;
    if (!s) return;
    e.preventDefault();
    this.send(s);
  }

  send(data) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type: 'input', data }));
  }
}
