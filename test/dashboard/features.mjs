// Headless-Chromium test of the dashboard features of issue 14 item 8,
// driven by features_test.go: the favicon, a session's automatic title in
// the list and the header, its usage and cost in the header, an assistant
// answer rendered as markdown with its <script>/<img onerror> inert, and the
// "New session" dialog creating a session in a given cwd with toolsets.
// Env: HERMES_LINK, HERMES_SESSION_ID, HERMES_TITLE, HERMES_NEW_CWD,
// HERMES_SCREENSHOT_DIR. Prints "NEW_SESSION <id>" and "FEATURES OK".
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import path from 'node:path';

const env = (k) => { const v = process.env[k]; if (!v) throw new Error(`${k} is not set`); return v; };
const link = env('HERMES_LINK');
const sid = env('HERMES_SESSION_ID');
const title = env('HERMES_TITLE');
const newCwd = env('HERMES_NEW_CWD');
const shots = env('HERMES_SCREENSHOT_DIR');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(30000);
  const failed = [];
  page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`); });
  page.on('console', (m) => console.log(`[console.${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => { console.log(`[pageerror] ${e.message}`); failed.push('pageerror ' + e.message); });
  page.on('dialog', (d) => { failed.push('alert ' + d.message()); d.dismiss(); });

  await page.goto(link);
  await page.waitForURL((u) => new URL(u).pathname === '/' && !new URL(u).search);
  await page.locator('#conn[data-state="online"]').waitFor();

  // The favicon: linked, and /favicon.ico (asked for by browsers anyway).
  for (const p of ['/assets/favicon.svg', '/favicon.ico']) {
    const r = await page.evaluate(async (u) => { const r = await fetch(u); return [r.status, r.headers.get('content-type')]; }, p);
    assert.deepEqual(r, [200, 'image/svg+xml'], `${p}: ${r}`);
  }
  assert.equal(await page.locator('link[rel="icon"]').getAttribute('href'), '/assets/favicon.svg');

  // The list shows the automatic title, not the id.
  const item = page.locator(`#sessions li[data-id="${sid}"]`);
  await item.locator('.t', { hasText: title }).waitFor();
  await item.click();
  await page.locator('#title', { hasText: title }).waitFor();

  // Usage and cost in the header.
  const usage = page.locator('#usage');
  await usage.filter({ hasText: /tokens \(.* in · .* cached · .* out\) · \$\d+\.\d{4}/ }).waitFor();
  console.log(`usage: ${await usage.textContent()}`);

  // The answer is rendered markdown; the HTML in it is text.
  const answer = page.locator('.msg.assistant .body.md').last();
  await answer.locator('h2', { hasText: 'Plan' }).waitFor();
  assert.equal(await answer.locator('strong').first().textContent(), 'bold');
  assert.equal(await answer.locator('em').first().textContent(), 'careful');
  assert.equal(await answer.locator('ul > li').count(), 2);
  assert.equal(await answer.locator('ol > li').count(), 2);
  assert.equal(await answer.locator('pre > code').textContent(), 'go test ./...\n<b>not bold</b>');
  assert.equal(await answer.locator('p code').first().textContent(), 'make verify');
  assert.equal(await answer.locator('a').count(), 1, 'only the https link is a link');
  assert.equal(await answer.locator('a').getAttribute('href'), 'https://example.com/docs');
  assert.equal(await answer.locator('a').getAttribute('rel'), 'noopener noreferrer nofollow');
  assert.equal(await answer.locator('blockquote').count(), 1);
  const live = await answer.evaluate((n) => n.querySelectorAll('script, img, iframe, [onerror], [onclick]').length);
  assert.equal(live, 0, 'HTML from the model became elements');
  const text = await answer.textContent();
  for (const s of ['<script>window.__pwned=1</script>', '<img src=x onerror="window.__pwned=2">', '[bad](javascript:alert(1))', 'evil\\u202etxt']) {
    assert.ok(text.includes(s), `answer text lacks ${s}: ${text}`);
  }
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'script from the model ran');
  await page.screenshot({ path: path.join(shots, 'dashboard-markdown.png'), fullPage: true });

  // New session: cwd, model and toolsets; it opens, and shows its cwd.
  await page.locator('#new-session').click();
  await page.locator('#new-dialog[open]').waitFor();
  await page.fill('#new-cwd', '/definitely/not/here');
  await page.click('#new-create');
  await page.locator('#new-error', { hasText: /^invalid_params: .*cwd/ }).waitFor();
  await page.screenshot({ path: path.join(shots, 'dashboard-new-session.png') });
  await page.fill('#new-cwd', newCwd);
  await page.fill('#new-model', 'test-model');
  await page.fill('#new-toolsets', 'terminal, file');
  await page.click('#new-create');
  await page.locator('#new-dialog:not([open])').waitFor({ state: 'attached' });
  await page.locator('#meta', { hasText: newCwd }).waitFor();
  const created = await page.locator('#sessions li[aria-current="true"]').getAttribute('data-id');
  assert.ok(created && created !== sid, `new session id ${created}`);
  console.log(`NEW_SESSION ${created}`);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(shots, 'dashboard-new-phone.png'), fullPage: true });

  assert.deepEqual(failed, [], `failed requests or page errors: ${failed.join(', ')}`);
  console.log('FEATURES OK');
} finally {
  await browser.close();
}
