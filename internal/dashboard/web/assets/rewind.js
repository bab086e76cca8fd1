// Checkpoints and rewind (issue 11): the session's checkpointed turns
// (session.checkpoints), each with a rewind action. A rewind without
// conflicts acts at once, so the action first says what it will do (the
// turn, its file count, the mode) and asks; only then it calls
// session.rewind. When the user changed files since the agent last wrote
// them the gateway answers "conflicts" and changes nothing: the paths are
// listed and "force" is offered. Every string from the gateway (summaries,
// paths, errors) is shown through el()/textContent, i.e. visible().
import { $, el, when } from './dom.js';

const MODES = [
  ['files', 'Files: put the files back as they were before this turn'],
  ['conversation', 'Conversation: continue from before this turn'],
  ['both', 'Both: files first, then the conversation'],
];

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

export class Checkpoints {
  // sessionID() is the session on screen; reload() reopens it (after a
  // rewind of the conversation the transcript is another one).
  constructor(gw, sessionID, reload) {
    this.gw = gw;
    this.sessionID = sessionID;
    this.reload = reload;
    this.rows = new Map(); // checkpoint id → row element
    this.gen = 0;
    this.notice = null; // {sid, text}: the last rewind's result, kept over a reload
    this.box = el('section', { class: 'checkpoints', id: 'checkpoints' });
    this.box.hidden = true;
    $('prompts').before(this.box);
  }

  clear() {
    this.gen++;
    this.rows.clear();
    this.box.replaceChildren();
    this.box.hidden = true;
  }

  async refresh() {
    const sid = this.sessionID();
    if (!sid) return;
    const gen = ++this.gen;
    let res;
    try {
      res = await this.gw.call('session.checkpoints', { session_id: sid });
    } catch {
      return; // checkpoints off for this session, or not allowed: nothing to show
    }
    if (gen !== this.gen || sid !== this.sessionID()) return;
    this.render(res.checkpoints || []);
  }

  render(list) {
    const keep = new Set(list.map((c) => c.checkpoint_id));
    for (const [id, row] of this.rows) if (!keep.has(id)) { row.remove(); this.rows.delete(id); }
    const head = el('h3', { text: `Checkpoints (${list.length})` });
    const notice = this.notice && this.notice.sid === this.sessionID()
      ? el('div', { class: 'ckpt-notice', text: this.notice.text }) : null;
    // Newest first: the turn one most likely wants to undo.
    const rows = [...list].reverse().map((c) => {
      let row = this.rows.get(c.checkpoint_id);
      if (!row) { row = this.row(c); this.rows.set(c.checkpoint_id, row); }
      return row;
    });
    this.box.replaceChildren(head, ...(notice ? [notice] : []), ...rows);
    this.box.hidden = list.length === 0 && !notice;
  }

  row(c) {
    const panel = el('div', { class: 'ckpt-panel' });
    panel.hidden = true;
    const open = el('button', {
      class: 'ghost small', text: 'Rewind…', dataset: { action: 'rewind' },
      onclick: () => { panel.hidden = !panel.hidden; if (!panel.hidden) this.confirm(c, panel); },
    });
    return el('div', { class: 'ckpt', dataset: { checkpoint: c.checkpoint_id, admission: c.admission_id } },
      el('div', { class: 'ckpt-line' },
        el('span', { class: 'ckpt-summary', text: c.summary || '(no prompt text)' }),
        el('span', { class: 'muted', text: `${when(c.created_at)} · ${plural(c.files, 'file', 'files')}` }),
        open),
      panel);
  }

  // confirm says what the rewind will do and asks before acting.
  confirm(c, panel) {
    const name = `mode-${c.checkpoint_id}`;
    const modes = MODES.map(([mode, label], i) => {
      const input = el('input', { type: 'radio', name, value: mode });
      input.checked = i === 0;
      return el('label', { class: 'ckpt-mode' }, input, el('span', { text: label }));
    });
    const picked = () => (panel.querySelector(`input[name="${CSS.escape(name)}"]:checked`) || {}).value || 'files';
    panel.replaceChildren(
      el('p', {
        text: `Rewind to before “${c.summary || c.checkpoint_id}”. The checkpoint holds ${plural(c.files, 'file', 'files')}: `
          + 'files the agent changed since are restored and files it created are removed. '
          + 'Files changed by someone else since the agent last wrote them are listed first, and kept unless you force.',
      }),
      el('div', { class: 'ckpt-modes' }, ...modes),
      el('div', { class: 'choices' },
        el('button', { text: 'Rewind', dataset: { action: 'confirm' }, onclick: () => this.rewind(c, panel, picked(), false) }),
        el('button', { class: 'ghost', text: 'Cancel', onclick: () => { panel.hidden = true; } })),
    );
  }

  async rewind(c, panel, mode, force) {
    for (const b of panel.querySelectorAll('button, input')) b.disabled = true;
    const sid = this.sessionID();
    let r;
    try {
      r = await this.gw.call('session.rewind', { session_id: sid, checkpoint_id: c.checkpoint_id, mode, ...(force ? { force: true } : {}) });
    } catch (e) {
      const why = e.reason === 'session_busy' ? 'a turn is running: wait for it to end, then rewind again' : e.message;
      panel.replaceChildren(el('p', { class: 'ckpt-error', text: `Rewind failed: ${why}` }),
        el('div', { class: 'choices' }, el('button', { class: 'ghost', text: 'Close', onclick: () => { panel.hidden = true; } })));
      return;
    }
    if (sid !== this.sessionID()) return;
    if (r.status === 'conflicts') return this.conflicts(c, panel, mode, r);
    const text = `Rewound (${mode}${force ? ', forced' : ''}) to before “${c.summary || c.checkpoint_id}”: `
      + `${r.restored.length} restored, ${r.removed.length} removed.`;
    this.notice = { sid, text };
    panel.replaceChildren(el('p', { class: 'ckpt-done', dataset: { status: r.status }, text }),
      ...[paths('Restored', r.restored), paths('Removed', r.removed)].filter(Boolean));
    if (mode !== 'files') this.reload();
  }

  conflicts(c, panel, mode, r) {
    panel.replaceChildren(
      el('p', { class: 'ckpt-warn', text: `Nothing changed: ${plural(r.conflicts.length, 'file was', 'files were')} changed since the agent last wrote them:` }),
      el('ul', { class: 'ckpt-conflicts' }, ...r.conflicts.map((p) => el('li', { text: p }))),
      el('p', { class: 'muted', text: `Force overwrites them too: ${r.restored.length} restored, ${r.removed.length} removed.` }),
      el('div', { class: 'choices' },
        el('button', { text: 'Force rewind', dataset: { action: 'force' }, onclick: () => this.rewind(c, panel, mode, true) }),
        el('button', { class: 'ghost', text: 'Cancel', onclick: () => { panel.hidden = true; } })),
    );
  }
}

function paths(label, list) {
  if (!list.length) return null;
  return el('details', {}, el('summary', { text: `${label} (${list.length})` }),
    el('ul', {}, ...list.map((p) => el('li', { text: p }))));
}
