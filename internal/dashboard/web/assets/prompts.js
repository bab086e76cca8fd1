// Approval and clarify cards: any operator viewing the session may answer.
import { $, el } from './dom.js';

export class PromptCards {
  constructor(gw, sessionID) {
    this.gw = gw;
    this.sessionID = sessionID;
    this.cards = new Map();
  }

  clear() { this.cards.clear(); $('prompts').replaceChildren(); }

  show(p) {
    if (this.cards.has(p.prompt_id)) return;
    const card = p.kind === 'approval' ? this.approval(p) : this.clarify(p);
    card.dataset.prompt = p.prompt_id;
    this.cards.set(p.prompt_id, card);
    $('prompts').append(card);
  }

  approval(p) {
    const buttons = (p.choices || []).map((c) => el('button', {
      class: c === 'deny' ? 'ghost' : '', text: c, dataset: { choice: c },
      onclick: () => this.respond('approval.respond', p, { choice: c }),
    }));
    return el('div', { class: 'card approval' }, el('h3', { text: 'Approval needed' }),
      el('pre', { text: p.command }), p.description ? el('div', { text: p.description }) : null,
      el('div', { class: 'choices' }, ...buttons));
  }

  clarify(p) {
    const input = el('input', { type: 'text', placeholder: 'Your answer' });
    const buttons = (p.choices || []).map((c) => el('button', {
      text: c, onclick: () => this.respond('clarify.respond', p, { answer: c }),
    }));
    const send = el('button', { text: 'Answer', onclick: () => this.respond('clarify.respond', p, { answer: input.value }) });
    return el('div', { class: 'card clarify' }, el('h3', { text: 'Question' }), el('div', { text: p.question }),
      el('div', { class: 'choices' }, ...buttons, input, send));
  }

  async respond(method, p, answer) {
    const card = this.cards.get(p.prompt_id);
    for (const b of card.querySelectorAll('button')) b.disabled = true;
    try {
      const r = await this.gw.call(method, {
        session_id: this.sessionID(), execution_generation: p.execution_generation, prompt_id: p.prompt_id, ...answer,
      });
      if (r.status === 'already_resolved') this.settled(p.prompt_id, 'already answered');
    } catch (e) {
      for (const b of card.querySelectorAll('button')) b.disabled = false;
      alert(method + ': ' + e.message);
    }
  }

  settled(id, text) {
    const card = this.cards.get(id);
    if (!card || card.classList.contains('settled')) return;
    card.classList.add('settled');
    for (const b of card.querySelectorAll('button')) b.disabled = true;
    card.append(el('div', { class: 'muted settled-note', text }));
  }
}
