// Headless-Chromium test of the dashboard's MCP badges (issue 13 item 4),
// driven by mcp_test.go: the profile's server "broken" (a command that does
// not exist) is stopped at first, so no badge; a session created in the
// dialog with toolsets mcp:broken and a prompt start it, it fails, and the
// periodic mcp.status shows it as a warning badge with its reason; a
// reload shows it at once (runtime.describe at connect).
// Env: HERMES_LINK, HERMES_NEW_CWD, HERMES_SCREENSHOT_DIR. Prints "MCP OK".
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import path from 'node:path';

const env = (k) => { const v = process.env[k]; if (!v) throw new Error(`${k} is not set`); return v; };
const link = env('HERMES_LINK');
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

  await page.goto(link);
  await page.waitForURL((u) => new URL(u).pathname === '/' && !new URL(u).search);
  await page.locator('#conn[data-state="online"]').waitFor();
  await page.locator('#sandbox:not([hidden])').waitFor(); // runtime.describe answered
  assert.equal(await page.locator('#mcp').isHidden(), true, 'a stopped server shows a badge');

  await page.locator('#new-session').click();
  await page.locator('#new-dialog[open]').waitFor();
  await page.fill('#new-cwd', newCwd);
  await page.fill('#new-toolsets', 'mcp:broken');
  await page.click('#new-create');
  await page.locator('#meta', { hasText: newCwd }).waitFor();
  await page.fill('#input', 'use broken');
  await page.click('#send');

  // mcp.status runs every 30 s: the failure shows within one period.
  const badge = page.locator('#mcp .mcp-badge[data-name="broken"][data-state="failed"]');
  const t0 = Date.now();
  await badge.waitFor({ timeout: 45000 });
  console.log(`badge after ${Date.now() - t0} ms: ${await badge.textContent()}`);
  const check = async () => {
    assert.equal(await badge.locator('b').textContent(), 'mcp: broken failed');
    const why = await badge.locator('.why').textContent();
    assert.match(why, /no such file|nonexistent/i, `reason ${why}`);
    assert.match(await badge.getAttribute('title'), /^MCP server broken \(config, stdio\) failed: /);
    const color = await badge.evaluate((n) => getComputedStyle(n).borderColor);
    const warn = await page.evaluate(() => { const d = document.createElement('div'); d.style.color = 'var(--warn)';
      document.body.append(d); const c = getComputedStyle(d).color; d.remove(); return c; });
    assert.equal(color, warn, 'the badge is not in the warning colour');
    assert.equal(await page.locator('#mcp .mcp-badge').count(), 1);
  };
  await check();
  await page.screenshot({ path: path.join(shots, 'dashboard-mcp-failed.png') });

  await page.reload();
  await page.locator('#conn[data-state="online"]').waitFor();
  await badge.waitFor({ timeout: 5000 });
  await check();

  assert.deepEqual(failed, [], `failed requests or page errors: ${failed.join(', ')}`);
  console.log('MCP OK');
} finally {
  await browser.close();
}
