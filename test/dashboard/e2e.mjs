// Headless-Chromium end-to-end test of the dashboard, driven by
// e2e_test.go: follow the one-time link, open the session, approve the
// pending command, wait for the turn to complete, save screenshots.
// HERMES_SCENARIO=rewind instead rewinds the session's checkpointed turn:
// the rewind action, its confirmation (the turn's file count), the
// conflicts the gateway answers (HERMES_EXPECT is the conflicting path),
// then force.
// Env: HERMES_LINK, HERMES_SESSION_ID, HERMES_EXPECT, HERMES_SCREENSHOT_DIR,
// HERMES_SCENARIO (approve | rewind).
import { chromium } from 'playwright-core';
import path from 'node:path';

const env = (k) => { const v = process.env[k]; if (!v) throw new Error(`${k} is not set`); return v; };
const link = env('HERMES_LINK');
const sid = env('HERMES_SESSION_ID');
const expect = env('HERMES_EXPECT');
const shots = env('HERMES_SCREENSHOT_DIR');
const scenario = process.env.HERMES_SCENARIO || 'approve';

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(30000);
  page.on('console', (m) => console.log(`[console.${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));

  await page.goto(link);
  await page.waitForURL((u) => new URL(u).pathname === '/' && !new URL(u).search);
  if ((await page.evaluate(() => document.cookie)).includes('hermes_session')) {
    throw new Error('the session cookie is readable from script (not HttpOnly)');
  }
  await page.locator('#subject').filter({ hasText: 'dashboard:uid:' }).waitFor();
  await page.locator('#conn[data-state="online"]').waitFor();
  // The header shows the sandbox in force (runtime.describe), OFF as a warning.
  const sandbox = page.locator('#sandbox').filter({ hasText: /^(sandbox: \S+|SANDBOX OFF)$/ });
  await sandbox.waitFor();
  console.log(`header: ${await sandbox.textContent()}`);

  await page.locator(`#sessions li[data-id="${sid}"]`).click();
  if (scenario === 'rewind') await rewind(page);
  else await approve(page);
  console.log('E2E OK');
} finally {
  await browser.close();
}

// approve: the pending command's card, answered once; the turn completes.
async function approve(page) {
  const once = page.locator('.card.approval button[data-choice="once"]');
  await once.waitFor();
  await page.screenshot({ path: path.join(shots, 'dashboard-approval.png'), fullPage: true });
  await once.click();
  await page.locator('.card.approval.settled').waitFor();
  await page.locator('.outcome[data-outcome="completed"]').waitFor();
  await page.locator('.msg.assistant', { hasText: expect }).first().waitFor();
  await page.screenshot({ path: path.join(shots, 'dashboard-completed.png'), fullPage: true });

  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(shots, 'dashboard-phone.png'), fullPage: true });
}

// rewind: the checkpointed turn's action asks first (saying how many files
// the checkpoint holds), the gateway answers with the user's edit as a
// conflict and changes nothing, force rewinds.
async function rewind(page) {
  const row = page.locator('.ckpt').first();
  await row.waitFor();
  await row.locator('button[data-action="rewind"]').click();
  const panel = row.locator('.ckpt-panel');
  await panel.filter({ hasText: 'The checkpoint holds 2 files' }).waitFor();
  await page.screenshot({ path: path.join(shots, 'dashboard-rewind-confirm.png'), fullPage: true });
  await panel.locator('button[data-action="confirm"]').click();
  await panel.locator('.ckpt-conflicts li', { hasText: expect }).waitFor();
  if (await panel.locator('.ckpt-done').count() !== 0) throw new Error('a rewind with conflicts reported done');
  await page.screenshot({ path: path.join(shots, 'dashboard-rewind-conflicts.png'), fullPage: true });
  await panel.locator('button[data-action="force"]').click();
  await panel.locator('.ckpt-done[data-status="rewound"]', { hasText: '2 restored, 1 removed' }).waitFor();
  await page.screenshot({ path: path.join(shots, 'dashboard-rewound.png'), fullPage: true });
}
