// The built page, served under a sub-path, driven as a learner drives it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { openPage, serveDist, suite, openAt, pickExample, ranked } from './harness.mjs';

let browser;
let server;
suite((s) => ({ browser, server } = s));

test('the console watcher itself catches an error (so the other tests can fail)', async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  await page.evaluate(() => console.error('sonde'));
  await page.waitForTimeout(50);
  assert.deepEqual(problems, ['console.error: sonde']);
  await context.close();
});

test('a typed question shows the top fiches of mots and mots+ with highlighted words', async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  await page.fill('#question', 'Un isolant qui ne brûle pas');
  const mots = page.locator('.colonne[data-methode="mots"] li.resultat');
  const motsPlus = page.locator('.colonne[data-methode="mots+"] li.resultat');
  assert.equal(await mots.count(), 5);
  assert.equal(await motsPlus.count(), 5);
  // Each result shows its rank, id, name, family and score.
  const first = mots.first();
  // Five fiches tie at the top under mots: the rank says so (« 1–6 »).
  assert.match(await first.locator('.rang').textContent(), /^1(–\d+)?$/);
  assert.match(await first.locator('.id').textContent(), /^AR-\d{4}$/);
  assert.match(await first.locator('.score').textContent(), /^\d+,\d\d$/);
  assert.ok((await first.locator('.nom').textContent()).length > 0);
  assert.ok((await first.locator('.famille').textContent()).length > 0);
  // « isolant » is marked in the fiche's text, as text inside <mark>.
  const marked = await first.locator('mark').allTextContents();
  assert.ok(marked.map((m) => m.toLowerCase()).includes('isolant'), marked.join('|'));
  // The expected fiche is not in the top 5 of mots: the column says where it is.
  await pickExample(page, 'Un isolant qui ne brûle pas');
  assert.match(await page.textContent('.colonne[data-methode="mots"] .hors'),
    /La fiche attendue AR-0063 (n'est qu'au rang \d+|n'est pas dans les 10 premières)\./);
  assert.deepEqual(server.outside, [], 'every request stays under the sub-path');
  assert.deepEqual(problems, []);
  await context.close();
});

test('typing once the page is ready never leaves the results busy (they were dimmed for good after the first letter)', async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.locator('#question').pressSequentially('isolant');
  await page.waitForFunction(() => document.querySelectorAll('.colonne[data-methode="mots"] li.resultat').length === 5);
  await page.waitForTimeout(500);
  assert.equal(await page.locator('#resultats').getAttribute('aria-busy'), null);
  assert.equal(await page.locator('#resultats').evaluate((e) => getComputedStyle(e).opacity), '1');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an example question marks its expected fiche, and « Pourquoi ce score ? » adds up', async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  await pickExample(page, 'Plaque BA13 H1 hydrofuge en 1,20 x 2,60 m');
  assert.equal(await page.inputValue('#question'), 'Plaque BA13 H1 hydrofuge en 1,20 x 2,60 m');
  assert.match(await page.textContent('#attendue'), /Fiche attendue\s: AR-0040/);
  const top = page.locator('.colonne[data-methode="mots"] li.resultat').first();
  assert.equal(await top.getAttribute('data-id'), 'AR-0040');
  assert.equal(await top.locator('.badge').textContent(), 'fiche attendue');
  // Built when opened, not with every column at each keystroke.
  assert.equal(await page.locator('#resultats table.explication').count(), 0);
  await top.locator('summary', { hasText: 'Pourquoi ce score ?' }).click();
  const rows = top.locator('table.explication tbody tr:not(.total)');
  assert.ok(await rows.count() >= 5);
  const parse = (s) => Number(s.replace(',', '.'));
  const parts = (await rows.locator('td:last-child').allTextContents()).map(parse);
  const total = parse(await top.locator('tr.total td').textContent());
  const shown = parse(await top.locator('.score').textContent());
  assert.ok(Math.abs(parts.reduce((a, b) => a + b, 0) - total) < 0.01, `${parts} vs ${total}`);
  assert.ok(Math.abs(total - shown) < 0.006, `${total} vs ${shown}`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a question without an answer says so, and a question of stop words finds nothing', async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  await pickExample(page, 'Louez-vous des échafaudages ?');
  assert.match(await page.textContent('#attendue'), /pas dans le catalogue/);
  assert.match(await page.textContent('.colonne[data-methode="mots"]'), /score nul/);
  await page.fill('#question', 'le la les ?');
  assert.match(await page.textContent('.colonne[data-methode="mots+"]'), /aucun mot après analyse/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('« Mesurer » shows 15/15, 8/20 and 15/20 for mots, and the seed output verbatim', async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  await page.click('#onglet-mesurer');
  assert.equal(await page.getAttribute('#onglet-mesurer', 'aria-selected'), 'true');
  const mots = page.locator('.methode[data-methode="mots"]');
  assert.equal(await ranked(mots.locator('tr[data-type="exacte"] .hit1')), '15/15');
  assert.equal(await ranked(mots.locator('tr[data-type="courante"] .hit1')), '8/20');
  assert.equal(await ranked(mots.locator('tr[data-type="courante"] .hit5')), '15/20');
  const reference = await readFile(new URL('../golden/mesurer-mots.out', import.meta.url), 'utf8');
  assert.equal(await mots.locator('pre.rapport').textContent(), reference);
  const plus = page.locator('.methode[data-methode="mots+"]');
  assert.equal(await ranked(plus.locator('tr[data-type="exacte"] .hit1')), '15/15');
  assert.match(await ranked(plus.locator('tr[data-type="courante"] .hit5')), /^(19|20)\/20$/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the page is usable at phone width and with the keyboard', async () => {
  const { page, context, problems } = await openAt(browser, server.url, 375, 740);
  await page.focus('#question');
  await page.keyboard.type('joint époxy');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `horizontal overflow of ${overflow}px`);
  await page.focus('#onglet-mesurer');
  await page.keyboard.press('Enter');
  assert.equal(await page.isVisible('#vue-mesurer'), true);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the Content-Security-Policy comes first and refuses injected scripts and foreign requests', async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  const first = await page.evaluate(() => document.head.firstElementChild.outerHTML);
  assert.match(first, /^<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'sha256-[A-Za-z0-9+\/=]+' 'sha256-[A-Za-z0-9+\/=]+' 'wasm-unsafe-eval'; connect-src 'self' https:\/\/api\.mistral\.ai;/);
  const outcome = await page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.pwned = 1';
    document.body.append(s);
    let fetched = 'sent';
    try { await fetch('http://127.0.0.1:9/exfiltrate'); } catch { fetched = 'blocked'; }
    return { pwned: window.pwned ?? null, fetched };
  });
  assert.deepEqual(outcome, { pwned: null, fetched: 'blocked' });
  await page.waitForTimeout(100);
  assert.ok(problems.some((p) => /securitypolicyviolation: script-src-elem/.test(p)), problems.join('\n'));
  assert.ok(problems.some((p) => /securitypolicyviolation: connect-src http:\/\/127\.0\.0\.1:9/.test(p)), problems.join('\n'));
  await context.close();
});

test('the GitHub Pages build (absolute URLs under /rag-fiches/) loads every asset and data file from there', async (t) => {
  const pages = await serveDist({ dir: 'dist-pages' });
  t.after(() => pages.close());
  const { page, context, problems } = await openPage(browser, null);
  const requested = [];
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  await page.goto(pages.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.fill('#question', 'joint époxy');
  await page.waitForSelector('.colonne[data-methode="mots"] li.resultat');
  const html = await page.content();
  assert.match(html, /src="\/rag-fiches\/premier-[0-9a-f]+\.js"|from '\/rag-fiches\/premier-[0-9a-f]+\.js'/);
  assert.ok(requested.some((p) => p === '/rag-fiches/data/fiches.jsonl'));
  // The first module, then the page's module it loads.
  assert.ok(requested.some((p) => /^\/rag-fiches\/premier-[0-9a-f]+_bg\.wasm$/.test(p)));
  assert.ok(requested.some((p) => p === '/rag-fiches/rag-fiches_bg.wasm'));
  assert.deepEqual(requested.filter((p) => !p.startsWith('/rag-fiches/')), []);
  assert.deepEqual(pages.outside, []);
  assert.deepEqual(problems, []);
  await context.close();
});

// The first module (src/web/first.rs) draws a shared link's keyword columns before the page's
// module is even requested; the page's module then draws them again, identical.
test('a shared link\'s first result comes from the first module, before the page\'s module is fetched', async () => {
  const { page, context, problems } = await openPage(browser, null);
  await context.addInitScript(() => {
    new MutationObserver((_, obs) => {
      if (document.querySelector('.colonne[data-methode="mots"] li.resultat')) {
        window.firstSeen = {
          pageModule: performance.getEntriesByType('resource').filter((e) => /\/rag-fiches(-[0-9a-f]+)?_bg\.wasm$/.test(e.name)).length,
          localVectors: performance.getEntriesByType('resource').filter((e) => /vecteurs-local/.test(e.name)).length,
          ready: document.body.dataset.ready ?? null,
          columns: [...document.querySelectorAll('.colonne')].map((c) => c.outerHTML),
        };
        obs.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  const question = 'Plaque BA13 H1 hydrofuge en 1,20 x 2,60 m';
  await page.goto(`${server.url}#q=${encodeURIComponent(question)}&m=mots,mots%2B`);
  await page.waitForSelector('body[data-ready="true"]');
  const first = await page.evaluate(() => window.firstSeen);
  assert.equal(first.pageModule, 0, 'the page\'s module was requested before the first result');
  // Nor the local encoder's vectors (250 kB): the first module asks for them once it has drawn,
  // and the page takes them from that request (one download, not two).
  assert.equal(first.localVectors, 0, 'the local vectors were requested before the first result');
  const localVectors = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => /vecteurs-local/.test(e.name)).map((e) => e.initiatorType));
  assert.deepEqual(localVectors, ['fetch']);
  assert.equal(first.ready, null);
  assert.equal(first.columns.length, 2);
  assert.match(first.columns[0], /data-id="AR-0040"[^]*fiche attendue/);
  // The page's own render of the same link: the same elements, down to « Pourquoi ce score ? ».
  const now = await page.evaluate(() => [...document.querySelectorAll('.colonne')].map((c) => c.outerHTML));
  assert.deepEqual(now, first.columns);
  assert.equal(await page.inputValue('#question'), question);
  assert.deepEqual(problems, []);
  await context.close();
});

// Everything the page draws above the columns, the first module draws first, as the page will once
// its vectors and a remembered key are read: the first result does not move under the learner's
// eyes (before, the page's methods and its line of unavailable ones pushed it 372 px down at
// 1366 px wide, 511 px at 390, in two steps).
test('the first columns do not move when the page\'s module takes over, on a computer and a phone', async () => {
  const links = [
    ['a typed question', `#q=${encodeURIComponent('un isolant qui ne brûle pas')}`, {}],
    ['an exercise question', `#q=${encodeURIComponent('Plaque BA13 H1 hydrofuge en 1,20 x 2,60 m')}`, {}],
    ['no question, the guide dismissed, a remembered key', '', { 'rag-fiches.guide-masque': '1', 'rag-fiches.cle-mistral': 'cle-de-test-0123456789abcdef' }],
  ];
  for (const [width, height] of [[1366, 900], [390, 844]]) {
    for (const [what, fragment, storage] of links) {
      const { page, context, problems } = await openPage(browser, null);
      await page.setViewportSize({ width, height });
      await context.addInitScript((storage) => {
        for (const [k, v] of Object.entries(storage)) localStorage.setItem(k, v);
        // Where the first column is, each frame from its first appearance.
        window.tops = [];
        const tick = () => {
          const c = document.querySelector('.colonne');
          if (c) {
            const at = `${c.dataset.methode} ${Math.round(c.getBoundingClientRect().top + scrollY)}`;
            if (window.tops.at(-1)?.at !== at) {
              window.tops.push({ at, ready: document.body.dataset.ready ?? null, above: document.getElementById('indisponibles').innerText });
            }
          }
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }, storage);
      await page.goto(server.url + fragment);
      await page.waitForSelector('body[data-ready="true"]');
      await page.waitForTimeout(500);
      const tops = await page.evaluate(() => window.tops);
      const label = `${what} at ${width} px: ${JSON.stringify(tops)}`;
      assert.equal(tops[0].ready, null, `the first columns came from the page's module: ${label}`);
      assert.equal(tops.length, 1, label);
      assert.deepEqual(problems, []);
      await context.close();
    }
  }
});

/** A shared link's first result drawn while the page's module is held back; the question box set
 *  to `text` meanwhile; then the page's module let in, until it is ready. */
async function editBeforeTakeover(text) {
  const opened = await openPage(browser, null);
  const { page } = opened;
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/rag-fiches.js', async (route) => { await held; await route.continue(); });
  await page.goto(`${server.url}#q=joint%20%C3%A9poxy`);
  await page.waitForSelector('.colonne[data-methode="mots"] li.resultat');
  await page.fill('#question', text);
  release();
  await page.waitForSelector('body[data-ready="true"]');
  return opened;
}

test('what the learner types before the page\'s module has arrived is kept', async () => {
  const { page, context, problems } = await editBeforeTakeover('Un isolant qui ne brûle pas');
  assert.equal(await page.inputValue('#question'), 'Un isolant qui ne brûle pas');
  await page.waitForFunction(() => [...document.querySelectorAll('.colonne[data-methode="mots"] mark')]
    .some((m) => m.textContent.toLowerCase() === 'isolant'));
  assert.deepEqual(problems, []);
  await context.close();
});

test('a question box emptied before the page\'s module has arrived stays empty', async () => {
  const { page, context, problems } = await editBeforeTakeover('');
  assert.equal(await page.inputValue('#question'), '');
  await page.waitForFunction(() => document.querySelector('.colonne[data-methode="mots"]')?.textContent.includes('Tapez une question'));
  assert.equal(await page.locator('li.resultat').count(), 0);
  assert.doesNotMatch(page.url(), /q=/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a page module that does not load is said in French, and the first result stays', async () => {
  const { page, context, problems } = await openPage(browser, null);
  await page.route('**/rag-fiches_bg.wasm', (route) => route.fulfill({ status: 200, contentType: 'application/wasm', body: 'pas du wasm' }));
  await page.goto(`${server.url}#q=joint%20%C3%A9poxy`);
  await page.waitForSelector('#erreur:not([hidden])');
  assert.match(await page.textContent('#erreur'), /^Le laboratoire n'a pas pu démarrer\s: le module de la page ne s'est pas chargé\. Rechargez la page\.$/);
  assert.equal(await page.locator('.colonne[data-methode="mots"] li.resultat').count(), 5);
  // The one console error is the module's own failure, reported by the first module.
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(problems[0], /^console\.error: rag-fiches\.js/);
  await context.close();
});
