// One session on screen: snapshot rendering, live events, catch-up after a
// reconnect (session.events.since), the FIFO and the prompt cards.
import { $, el, pretty, randomID, setText, visible } from './dom.js';
import { PromptCards } from './prompts.js';
import { Checkpoints } from './rewind.js';
import { renderMarkdown } from './markdown.js';
import { showUsage } from './usage.js';

export class SessionView {
  constructor(gw) {
    this.gw = gw;
    this.sessionID = null;
    this.prompts = new PromptCards(gw, () => this.sessionID);
    this.checkpoints = new Checkpoints(gw, () => this.sessionID, () => this.open(this.sessionID));
    $('composer').addEventListener('submit', (e) => { e.preventDefault(); this.submit(); });
    $('input').addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) this.submit(); });
  }

  reset(id) {
    this.sessionID = id;
    this.seen = new Set();
    this.shown = new Set();
    this.lastSeq = 0;
    this.replayEpoch = undefined;
    this.bubble = null;
    this.tools = new Map();
    this.prompts.clear();
    this.checkpoints.clear();
  }

  async open(id) {
    const previous = this.sessionID === id ? null : this.subscription;
    if (previous) this.gw.call('session.detach', { session_id: this.sessionID, subscription_id: previous }).catch(() => {});
    this.reset(id);
    $('empty').hidden = true;
    $('session-view').hidden = false;
    const snap = await this.gw.call('session.resume', { session_id: id });
    this.render(snap);
  }

  render(snap) {
    this.subscription = snap.subscription_id;
    this.lastSeq = snap.last_sequence;
    this.replayEpoch = snap.replay_epoch;
    const info = snap.info || {};
    this.title = info.title || '';
    $('title').textContent = visible(info.title || snap.session_id);
    $('meta').textContent = visible([info.source, info.model, info.cwd].filter(Boolean).join(' · '));
    showUsage($('usage'), info.usage);
    $('transcript').replaceChildren();
    for (const m of snap.messages) this.renderMessage(m);
    this.updateState(snap.pending, snap.running, snap.execution_generation);
    for (const p of snap.prompts || []) this.prompts.show(p);
    this.checkpoints.refresh();
    this.scroll();
  }

  renderMessage(m) {
    if (m.role === 'user') this.addMsg('user', 'you', m.content);
    else if (m.role === 'assistant') {
      if (m.content) this.addMsg('assistant', 'assistant', m.content);
      for (const c of parseCalls(m.tool_calls)) this.toolCard(c.id, c.function.name, c.function.arguments);
    } else if (m.role === 'tool') {
      this.toolResult(m.tool_call_id, m.content, '');
    }
  }

  addMsg(kind, who, text) {
    const body = el('div', { class: 'body', text: text || '' });
    if (kind === 'assistant' && text) markdown(body, text);
    const node = el('div', { class: 'msg ' + kind }, el('div', { class: 'who', text: who }), body);
    $('transcript').append(node);
    return { node, body };
  }

  // hookRun shows a hook that blocked or failed in the turn (issue 12).
  hookRun(p) {
    if (p.outcome === 'ok') return;
    this.bubble = null;
    const what = p.blocks ? (p.outcome === 'blocked' ? 'blocked' : `${p.outcome}, fail_closed: blocked`) : p.outcome;
    const target = p.tool ? `${p.event} ${p.tool}` : p.event;
    this.addMsg('hook', `hook ${what}`, visible(`${target}: ${p.command} (exit ${p.exit_code}, ${p.duration_ms} ms)${p.reason ? ' — ' + p.reason : ''}`));
  }

  toolCard(id, name, args) {
    const result = el('pre', { class: 'result muted', text: 'running…' });
    const card = el('details', { class: 'tool' }, el('summary', { text: `⚙ ${name}` }),
      el('pre', { text: pretty(args) }), result);
    $('transcript').append(card);
    this.tools.set(id, { card, result });
  }

  toolResult(id, text, error) {
    const t = this.tools.get(id);
    if (!t) return;
    setText(t.result, error ? `error: ${error}\n${text || ''}` : (text || '(no output)'));
    t.result.classList.remove('muted');
  }

  updateState(pending = [], running = false, generation) {
    if (generation !== undefined) this.generation = generation;
    $('running').hidden = !running;
    for (const p of pending) if (p.status !== 'queued') this.shown.add(p.admission_id);
    $('fifo').replaceChildren(...pending.map((p) => this.fifoRow(p)));
  }

  fifoRow(p) {
    const row = el('div', { class: 'row', dataset: { admission: p.admission_id } },
      el('span', { class: 'status ' + p.status, text: p.status }), el('span', { class: 'txt', text: p.text }));
    if (p.status === 'unknown') {
      row.append(el('button', { class: 'small', text: 'resolve', onclick: () => this.resolve(p) }));
    } else if (p.status === 'queued') {
      row.append(el('button', { class: 'ghost small', text: 'cancel', onclick: () => this.cancel(p) }));
    }
    return row;
  }

  async resolve(p) {
    await this.gw.call('prompt.resolve_unknown', {
      session_id: this.sessionID, admission_id: p.admission_id, execution_generation: p.execution_generation,
    }).catch((e) => alert('resolve: ' + e.message));
  }

  async cancel(p) {
    await this.gw.call('prompt.cancel', { session_id: this.sessionID, admission_id: p.admission_id })
      .catch((e) => alert('cancel: ' + e.message));
  }

  async submit() {
    const input = $('input');
    const text = input.value.trim();
    if (!text || !this.sessionID) return;
    $('send').disabled = true;
    try {
      const r = await this.gw.call('prompt.submit', { session_id: this.sessionID, submission_id: randomID('web-'), text });
      input.value = '';
      this.shown.add(r.admission_id);
      this.addMsg('user', 'you', text);
      this.scroll();
    } catch (e) {
      alert('submit: ' + e.message);
    } finally {
      $('send').disabled = false;
    }
  }

  onEvent(ev) {
    if (!this.sessionID || ev.session_id !== this.sessionID) return;
    if (ev.seq) {
      if (this.seen.has(ev.seq)) return;
      this.seen.add(ev.seq);
      this.lastSeq = Math.max(this.lastSeq, ev.seq);
    }
    this.apply(ev.type, ev.payload || {}, ev);
    this.scroll();
  }

  apply(type, p, ev) {
    switch (type) {
      case 'message.start': this.bubble = null; break;
      case 'message.delta': this.delta(p.text); break;
      case 'message.complete': this.complete(p); break;
      case 'tool.start': this.bubble = null; this.toolCard(p.tool_id, p.name, p.args); break;
      case 'tool.complete': this.toolResult(p.tool_id, p.result, p.error); break;
      case 'hook.run': this.hookRun(p); break;
      case 'approval.request': this.prompts.show({ ...p, kind: 'approval' }); break;
      case 'clarify.request': this.prompts.show({ ...p, kind: 'clarify' }); break;
      case 'approval.settled': this.prompts.settled(p.prompt_id, `answered “${p.choice}” by ${p.by}`); break;
      case 'clarify.settled': this.prompts.settled(p.prompt_id, 'answered'); break;
      case 'session.info': this.sessionInfo(p); break;
      case 'session.replay_gap': this.reconnect(); break;
      case 'checkpoint.created': case 'session.rewound': this.checkpoints.refresh(); break;
      default: break;
    }
  }

  sessionInfo(p) {
    for (const row of p.pending || []) {
      if (row.status === 'started' && !this.shown.has(row.admission_id)) {
        this.shown.add(row.admission_id);
        this.addMsg('user', 'operator', row.text);
      }
    }
    this.updateState(p.pending, p.running, p.execution_generation);
    if (p.usage) showUsage($('usage'), p.usage);
    if (typeof p.title === 'string' && p.title !== this.title) {
      this.title = p.title;
      $('title').textContent = visible(p.title || this.sessionID);
      if (this.onTitle) this.onTitle(this.sessionID, p.title);
    }
  }

  delta(text) {
    if (!this.bubble) this.bubble = this.addMsg('assistant', 'assistant', '');
    this.bubble.body.textContent += visible(text, true);
  }

  complete(p) {
    if (!this.bubble) this.bubble = this.addMsg('assistant', 'assistant', '');
    if (p.text) markdown(this.bubble.body, p.text);
    this.bubble.node.append(el('div', { class: 'outcome', dataset: { outcome: p.outcome || '' }, text: `turn ${p.outcome || 'ended'}` }));
    this.bubble = null;
  }

  // reconnect catches up with the journal since the last event seen, then
  // attaches again (a new connection has no subscription).
  async reconnect() {
    if (!this.sessionID) return;
    try {
      if (!(await this.catchUp())) return this.open(this.sessionID);
      const snap = await this.gw.call('session.resume', { session_id: this.sessionID });
      this.subscription = snap.subscription_id;
      this.prompts.clear();
      for (const pr of snap.prompts || []) this.prompts.show(pr);
      this.updateState(snap.pending, snap.running, snap.execution_generation);
      await this.catchUp();
    } catch { /* the next reconnect tries again */ }
  }

  async catchUp() {
    for (;;) {
      const r = await this.gw.call('session.events.since', {
        session_id: this.sessionID, replay_epoch: this.replayEpoch, last_sequence: this.lastSeq,
      });
      if (r.snapshot_required) return false;
      for (const ev of r.events) this.onEvent(ev);
      if (!r.more || !r.events.length) return true;
    }
  }

  scroll() { const t = $('transcript'); t.scrollTop = t.scrollHeight; }
}

// markdown shows an assistant's text as rendered markdown (markdown.js:
// DOM nodes only, never HTML).
function markdown(body, text) {
  body.classList.add('md');
  body.replaceChildren(renderMarkdown(text));
}

function parseCalls(raw) {
  if (!raw) return [];
  try { const v = typeof raw === 'string' ? JSON.parse(raw) : raw; return Array.isArray(v) ? v : []; } catch { return []; }
}
