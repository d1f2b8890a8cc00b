// Screenshots of the page as a learner sees it, to look at before calling a page change done:
//   node screens.mjs OUT_DIR [DIST_DIR]
// Chercher with a typed question, Mesurer, and Améliorer after the seed's synonym, at 1366 and
// 390 px; prints the console errors seen.
import { mkdir } from 'node:fs/promises';
import { launch, serveDist, openPage } from './harness.mjs';

const [out = 'captures', dir = 'dist'] = process.argv.slice(2);
await mkdir(out, { recursive: true });
const browser = await launch();
const server = await serveDist({ dir });
let errors = 0;
for (const [width, height] of [[1366, 900], [390, 844]]) {
  const { page, problems } = await openPage(browser, null);
  await page.setViewportSize({ width, height });
  await page.goto(`${server.url}#q=${encodeURIComponent('Une plaque de plâtre pour une pièce humide')}`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${out}/chercher-${width}.png`, fullPage: true });
  await page.click('#onglet-mesurer');
  await page.waitForTimeout(1000);
  await page.screenshot({ path: `${out}/mesurer-${width}.png`, fullPage: true });
  await page.click('#onglet-ameliorer');
  await page.waitForSelector('#ameliorer-chiffres');
  await page.fill('#ameliorer-fiche', 'AR-0063');
  await page.fill('#ameliorer-ajout', 'ne brûle pas');
  await page.click('button[data-ameliorer="enrichir"]');
  await page.waitForSelector('#ameliorer-verdict');
  await page.screenshot({ path: `${out}/ameliorer-${width}.png`, fullPage: true });
  errors += problems.length;
  for (const p of problems) console.log(`${width}px: ${p}`);
  await page.context().close();
}
console.log(`console errors: ${errors}`);
await browser.close();
await server.close();
