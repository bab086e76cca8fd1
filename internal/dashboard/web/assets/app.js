// The dashboard page: sign-in state, the sessions list, the session view
// (transcript, tools, FIFO, approvals/clarify) and the terminal pane.
import { Gateway } from './rpc.js';
import { $, el, visible, when } from './dom.js';
import { SessionView } from './session.js';
import { Terminal } from './terminal.js';
import { wireNewSession } from './newsession.js';

const gw = new Gateway();
const view = new SessionView(gw);
const term = new Terminal();
let scope = 'live';

async function main() {
  const res = await fetch('/api/auth/me', { credentials: 'same-origin' });
  const me = await res.json();
  if (!res.ok) return showSignIn(me.gated);
  $('subject').textContent = visible(me.subject);
  $('logout').hidden = false;
  $('term-toggle').hidden = false;
  $('app').hidden = false;
  wire();
  gw.addEventListener('state', (e) => { $('conn').dataset.state = e.detail; $('conn').textContent = e.detail; });
  gw.addEventListener('unauthorized', () => location.reload());
  gw.addEventListener('event', (e) => { view.onEvent(e.detail); mcpToolFailed(e.detail); });
  gw.addEventListener('reconnected', () => { loadSessions(); loadSandbox(); view.reconnect(); });
  await connectFirst();
  loadSessions();
  loadSandbox();
  setInterval(loadSessions, 15000);
  setInterval(loadMCP, mcpPollMs);
}

async function connectFirst() {
  try { await gw.connect(); } catch (e) { if (e.message !== 'signed out') gw.reconnectLater(); }
}

// sandboxLabels are the header's compact names of the sandbox levels.
const sandboxLabels = {
  'namespaces+landlock+seccomp': 'sandbox: full',
  'landlock+seccomp': 'sandbox: landlock-only',
  'none': 'SANDBOX OFF',
};

// loadSandbox shows in the header what the gateway's sandbox enforces
// (runtime.describe); tools running unsandboxed show as a warning.
async function loadSandbox() {
  if (!gw.ws) return;
  let d;
  try { d = await gw.call('runtime.describe'); } catch { return; }
  showMCP(d.mcp_servers || []);
  const node = $('sandbox'), s = d.sandbox;
  node.hidden = !s;
  if (!s) return;
  node.dataset.level = s.level;
  node.textContent = sandboxLabels[s.level] || `sandbox: ${s.level}`;
  node.title = `sandbox.mode ${s.mode} · ${s.level}` +
    (s.landlock_abi ? ` · Landlock ABI ${s.landlock_abi}` : ' · no Landlock') + ` · network ${s.network}` +
    (s.level === 'none' ? ' · tools run with your full rights' : '');
}

// mcpPollMs is how often the header's MCP badges are refreshed with
// mcp.status (besides runtime.describe at each connect).
const mcpPollMs = 30000;

async function loadMCP() {
  if (!gw.ws) return;
  let r;
  try { r = await gw.call('mcp.status', {}); } catch { return; } // an older gateway: describe's list stays
  showMCP(r.servers || []);
}

// mcpToolFailed refreshes the badges when a call of an MCP tool
// (mcp__<server>__<tool>) in the open session ended with an error: its
// server may have failed.
function mcpToolFailed(ev) {
  if (ev && ev.type === 'tool.complete' && ev.payload && ev.payload.error &&
    String(ev.payload.name || '').startsWith('mcp__')) loadMCP();
}

// showMCP shows each failed MCP server as a warning badge in the header:
// its name and the reason (cut by the stylesheet; whole in the tooltip),
// all server text through visible() and textContent. At most three; the
// rest are counted.
function showMCP(servers) {
  const node = $('mcp');
  const failed = servers.filter((s) => s.state === 'failed');
  const shown = failed.slice(0, 3).map((s) => {
    const name = visible(s.name), why = visible(s.error || 'failed');
    return el('span', { class: 'mcp-badge', dataset: { name: visible(s.name), state: s.state },
      title: `MCP server ${name} (${visible(s.source)}, ${visible(s.transport)}) failed: ${why}` +
        (s.restarts ? ` · ${s.restarts} restarts` : '') },
    el('b', {}, `mcp: ${name} failed`), ' ', el('span', { class: 'why' }, why));
  });
  if (failed.length > shown.length) shown.push(el('span', { class: 'mcp-more' }, `+${failed.length - shown.length} failed`));
  node.replaceChildren(...shown);
  node.hidden = !failed.length;
}

function showSignIn(gated) {
  $('signin').hidden = false;
  $('signin-gated').hidden = !gated;
  $('signin-loopback').hidden = gated;
}

function wire() {
  $('logout').addEventListener('click', async () => {
    gw.stopped = true;
    await fetch('/auth/logout', { method: 'POST', credentials: 'same-origin' });
    location.replace('/');
  });
  $('refresh').addEventListener('click', loadSessions);
  for (const tab of document.querySelectorAll('.tab')) {
    tab.addEventListener('click', () => {
      scope = tab.dataset.scope;
      for (const t of document.querySelectorAll('.tab')) t.setAttribute('aria-selected', String(t === tab));
      loadSessions();
    });
  }
  $('back').addEventListener('click', () => { $('app').classList.remove('has-session'); });
  $('term-toggle').addEventListener('click', () => term.open(view.sessionID));
  $('term-close').addEventListener('click', () => term.close());
  wireNewSession(gw, (id) => openSession(id));
  view.onTitle = (id, title) => {
    const t = document.querySelector(`.sessions li[data-id="${CSS.escape(id)}"] .t .name`);
    if (t) t.textContent = visible(title || id);
  };
}

// openSession shows session id (a new one: after it is in the list).
async function openSession(id) {
  await loadSessions();
  const li = document.querySelector(`.sessions li[data-id="${CSS.escape(id)}"]`);
  if (li) { li.click(); return; }
  $('app').classList.add('has-session');
  view.open(id);
}

async function loadSessions() {
  if (!gw.ws) return;
  let res;
  try { res = await gw.call('session.list', { scope, limit: 100 }); } catch { return; }
  const list = $('sessions');
  list.replaceChildren(...res.sessions.map(sessionItem));
  if (!res.sessions.length) list.append(el('li', { class: 'muted', text: scope === 'live' ? 'No live sessions.' : 'No stored sessions.' }));
}

function sessionItem(s) {
  const li = el('li', { dataset: { id: s.session_id } },
    el('div', { class: 't', title: visible(s.session_id) }, s.running ? el('span', { class: 'dot', title: 'running' }) : null,
      el('span', { class: s.title ? 'name' : 'name untitled', text: s.title || s.session_id })),
    el('div', { class: 's', text: `${s.source} · ${s.message_count} messages · ${when(s.started_at)}` }));
  if (s.session_id === view.sessionID) li.setAttribute('aria-current', 'true');
  li.addEventListener('click', () => {
    for (const o of document.querySelectorAll('.sessions li')) o.removeAttribute('aria-current');
    li.setAttribute('aria-current', 'true');
    $('app').classList.add('has-session');
    view.open(s.session_id);
  });
  return li;
}

main();
