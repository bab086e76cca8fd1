// The "New session" dialog: session.create with a cwd, a model and
// toolsets (issue 14). Empty fields keep the gateway's defaults; the
// toolsets offered are the gateway's names, and an unknown one is refused
// by the gateway, whose message is shown.
import { $, randomID, visible } from './dom.js';

// params reads the form into session.create params.
export function createParams(form) {
  const p = { request_id: randomID('web-create-'), source: 'gui' };
  const cwd = form.cwd.value.trim(), model = form.model.value.trim(), toolsets = form.toolsets.value.trim();
  if (cwd) p.cwd = cwd;
  if (model) p.model = model;
  if (toolsets) p.toolsets = toolsets.split(/[\s,]+/).filter(Boolean);
  return p;
}

// wireNewSession opens the dialog from #new-session; created(id) runs with
// the new session's id.
export function wireNewSession(gw, created) {
  const dialog = $('new-dialog'), form = $('new-form'), err = $('new-error');
  $('new-session').addEventListener('click', () => {
    err.textContent = '';
    dialog.showModal();
    form.cwd.focus();
  });
  $('new-cancel').addEventListener('click', () => dialog.close());
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    err.textContent = '';
    $('new-create').disabled = true;
    try {
      const snap = await gw.call('session.create', createParams(form));
      dialog.close();
      form.reset();
      created(snap.session_id);
    } catch (x) {
      err.textContent = visible(x.detail ? `${x.message}: ${x.detail}` : x.message);
    } finally {
      $('new-create').disabled = false;
    }
  });
}
