// The page offline after one visit (rt4 R4): its service worker (www/sw.js) keeps this
// build; offline, a reload opens the page, the keyword methods answer, the local model answers a
// typed question whose blocks were kept and says which need the network; back online it answers
// without a reload; a second build deployed over the first replaces the kept one whole at the
// next visit. "Offline" is the server stopped: every request the page or its workers make fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, serveDist, openPage, localModelPresent } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const present = localModelPresent('the page offline');
const Q1 = 'Quel mortier pour monter un mur en parpaings ?';
const Q2 = 'Un produit pour traiter une charpente contre les insectes';
const Q3 = 'Une peinture pour le sol du garage';
let browser;

before(async () => { if (present) browser = await launch(); });
after(async () => { await browser?.close(); });

async function terminalTop(question) {
  const { stdout } = await promisify(execFile)(join(ROOT, 'target/release/mesurer'),
    ['sens-local', '--question', question], { cwd: ROOT });
  return [...stdout.matchAll(/^\s*\d+\.\s+(\S+)/gm)].map((m) => m[1]);
}

async function expectTop(page, question, want) {
  await page.fill('#question', question);
  try {
    await page.waitForFunction((w) => [...document.querySelectorAll('#colonne-sens-local li.resultat')]
      .map((li) => li.dataset.id).join() === w.join(), want, { timeout: 120000 });
  } catch (e) {
    const got = await page.$$eval('#colonne-sens-local li.resultat', (lis) => lis.map((li) => li.dataset.id));
    assert.fail(`${question}: sens local lists ${got.join(' ')}, the terminal ${want.join(' ')} (${e.message})`);
  }
}

const siteCaches = (page) => page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('rag-fiches-site-')));
const version = (sw) => /const VERSION = "([0-9a-f]+)"/.exec(sw)?.[1];

test('rt4-r4 after one visit the page works offline, and rt4-r7 blocks failing offline leave no unhandled rejection: it opens, mots+ answers, sens local answers from kept blocks and says which need the network, and back online answers without a reload; a second build replaces the first whole at the next visit', { skip: !present }, async () => {
  let server = await serveDist();
  const port = new URL(server.url).port;
  const sw = await readFile(join(ROOT, 'dist/sw.js'), 'utf8');
  const { page, context, problems } = await openPage(browser, server.url, { serviceWorkers: 'allow' });
  // rt4-r7: the local encoder's workers record their unhandled rejections (Playwright's console
  // does not read a dedicated worker's).
  const workers = [];
  page.on('worker', (w) => {
    workers.push(w);
    w.evaluate(() => {
      self.__rejets = [];
      self.addEventListener('unhandledrejection', (e) => self.__rejets.push(String(e.reason?.message ?? e.reason)));
    }).catch(() => {});
  });
  const rejections = async () => (await Promise.all(workers.map((w) => w.evaluate(() => self.__rejets ?? []).catch(() => [])))).flat();
  try {
    const [want1, want2, want3] = await Promise.all([Q1, Q2, Q3].map(terminalTop));
    await page.waitForSelector('body[data-ready="true"]');
    // The visit: the service worker takes the page, the local model answers one question.
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, null, { timeout: 30000 });
    assert.deepEqual(await siteCaches(page), [`rag-fiches-site-${version(sw)}`]);
    // Kept from the HTTP cache the visit filled: no file of the page downloaded twice.
    const twice = [...new Set(server.requests)].filter((p) => server.requests.filter((q) => q === p).length > 1);
    assert.deepEqual(twice, [], `requested twice: ${server.requests.join(' ')}`);
    await page.check('#voir-sens-local');
    await expectTop(page, Q1, want1);

    // Offline: the server stops; a reload opens the page from the kept build.
    await server.close();
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    await page.fill('#question', 'Un isolant qui ne brûle pas');
    await page.waitForSelector('.colonne[data-methode="mots+"] li.resultat');
    assert.equal(await page.locator('.colonne[data-methode="mots+"] li.resultat').first().getAttribute('data-id'), 'AR-0064');
    // sens local: Q1's blocks are kept, Q2's are not.
    if (!(await page.isChecked('#voir-sens-local'))) await page.check('#voir-sens-local');
    await expectTop(page, Q1, want1);
    await page.fill('#question', Q2);
    const said = page.locator('#indisponibles');
    await said.filter({ hasText: /n'a pas pu charger les lignes/ }).waitFor({ timeout: 60000 });
    assert.match(await said.textContent(), /le réseau a échoué/);
    assert.deepEqual(await rejections(), [], 'rt4-r7: blocks failing offline leave no unhandled rejection');

    // Back online, no reload: the next question fetches what it needs.
    server = await serveDist({ port });
    await expectTop(page, Q3, want3);
    await expectTop(page, Q2, want2);

    // A second build over the first: another sw.js (another version) and another page.
    const v2 = 'b2b2b2b2b2b2b2b2';
    const html = (await readFile(join(ROOT, 'dist/index.html'), 'utf8')).replace('<html', '<html data-build="deux"');
    await server.close();
    server = await serveDist({ port, overrides: { 'sw.js': sw.replace(`"${version(sw)}"`, `"${v2}"`), 'index.html': html } });
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.build), 'deux', 'the new page at the next visit');
    await page.waitForFunction(async (v) => {
      const keys = (await caches.keys()).filter((k) => k.startsWith('rag-fiches-site-'));
      return keys.length === 1 && keys[0] === `rag-fiches-site-${v}`;
    }, v2, { timeout: 30000 });
    // Offline again: the second build's page, from its own cache.
    await server.close();
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    assert.equal(await page.evaluate(() => document.documentElement.dataset.build), 'deux');
    // Offline, only what needs the network may fail: the blocks not kept, and the service
    // worker's own update check.
    const others = problems.filter((p) => !/lignes\/|ERR_CONNECTION_REFUSED|ERR_INTERNET_DISCONNECTED|sw\.js/.test(p));
    assert.deepEqual(others, []);
  } finally {
    await context.close();
    await server.close();
  }
});
