// Headless-Chromium end-to-end test of the dashboard, driven by
// e2e_test.go: follow the one-time link, open the session, approve the
// pending command, wait for the turn to complete, save screenshots.
// Env: HERMES_LINK, HERMES_SESSION_ID, HERMES_EXPECT, HERMES_SCREENSHOT_DIR.
import { chromium } from 'playwright-core';
import path from 'node:path';

const env = (k) => { const v = process.env[k]; if (!v) throw new Error(`${k} is not set`); return v; };
const link = env('HERMES_LINK');
const sid = env('HERMES_SESSION_ID');
const expect = env('HERMES_EXPECT');
const shots = env('HERMES_SCREENSHOT_DIR');

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
  console.log('E2E OK');
} finally {
  await browser.close();
}
