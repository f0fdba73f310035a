#!/usr/bin/env node
// Screenshots a served workbench (e.g. the one `npm start` serves) with the Arbor side bar open.
// Usage: node scripts/screenshot.mjs [url] [output.png]
//   url     default http://127.0.0.1:$ARBOR_PORT (8080)
//   output  default test-results/screenshots/workbench.png
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, launchChromium } from './lib/codeServer.mjs';

const url = process.argv[2] ?? `http://127.0.0.1:${process.env.ARBOR_PORT ?? 8080}/`;
const output = path.resolve(process.argv[3] ?? path.join(ROOT, 'test-results/screenshots/workbench.png'));

const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  // The workbench is slow to start on a busy machine; the activity bar entry appears once
  // extensions are registered.
  const arbor = page.locator('.activitybar .action-item a[aria-label^="Arbor"]');
  await arbor.waitFor({ state: 'visible', timeout: 120_000 });
  if ((await arbor.getAttribute('aria-expanded')) !== 'true') await arbor.click();
  await page.getByText('No agents are running.').filter({ visible: true }).first().waitFor({ timeout: 30_000 });
  // Let activation settle (the activity bar shows a progress badge until then) and move the
  // pointer off the activity bar so no hover tooltip covers the picture.
  await page.mouse.move(900, 700);
  await page.waitForTimeout(3_000);
  fs.mkdirSync(path.dirname(output), { recursive: true });
  await page.screenshot({ path: output });
  console.log(`Saved ${path.relative(process.cwd(), output) || output}`);
} finally {
  await browser.close();
}
