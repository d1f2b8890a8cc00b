// The local model by rows (src/encoder/blocks.rs, src/worker/blocks.rs): what a typed question
// costs, counted by the server, from asking for the local methods to the first results; the top 5
// the terminal prints for the same question; each block fetched once, kept across a reload; a
// block fetch that fails retried, or said with the page still usable, and never cached.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, serveDist, openPage, localModelPresent, forgedBlock } from './harness.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const present = localModelPresent('the local model by rows');
const MIB = 1024 * 1024;
const BLOCKS = 'data/modele-local/lignes/';
// Typed questions of none of the exercise's: their pieces' rows are not in the head.
const Q1 = 'Quel mortier pour monter un mur en parpaings ?';
const Q2 = 'Un produit pour traiter une charpente contre les insectes';
const Q3 = 'Une peinture pour le sol du garage';
let browser;

before(async () => { if (present) browser = await launch(); });
after(async () => { await browser?.close(); });

/** The top 5 `mesurer sens-local --question` prints. */
async function terminalTop(question) {
  const { stdout } = await promisify(execFile)(join(ROOT, 'target/release/mesurer'),
    ['sens-local', '--question', question], { cwd: ROOT });
  return [...stdout.matchAll(/^\s*\d+\.\s+(\S+)/gm)].map((m) => m[1]);
}

const total = (list) => list.reduce((a, b) => a + b.bytes, 0);
const blockPaths = (list) => list.map((b) => b.path).filter((p) => p.startsWith(BLOCKS));

/** Types `question` and waits for sens local's column to list `want` (the terminal's top 5). */
async function expectTop(page, question, want) {
  await page.fill('#question', question);
  const ids = () => page.$$eval('#colonne-sens-local li.resultat', (lis) => lis.map((li) => li.dataset.id));
  try {
    await page.waitForFunction((w) => {
      const ids = [...document.querySelectorAll('#colonne-sens-local li.resultat')].map((li) => li.dataset.id);
      return ids.join() === w.join();
    }, want, { timeout: 120000 });
  } catch (e) {
    assert.fail(`${question}: sens local lists ${(await ids()).join(' ')}, the terminal ${want.join(' ')} (${e.message})`);
  }
}

test('a typed question: at most 3 MiB served from asking for the local methods to its first results, the terminal\'s top 5; the next question adds only its new blocks; a reload adds nothing', { skip: !present }, async () => {
  const server = await serveDist();
  const { page, context, problems } = await openPage(browser, server.url);
  try {
    await page.waitForSelector('body[data-ready="true"]');
    const [want1, want2, want3] = await Promise.all([Q1, Q2, Q3].map(terminalTop));
    const asked = server.bytes.length;
    await page.check('#voir-sens-local');
    await expectTop(page, Q1, want1);
    const first = server.bytes.slice(asked);
    const second0 = server.bytes.length;
    await expectTop(page, Q2, want2);
    const second = server.bytes.slice(second0);
    const third0 = server.bytes.length;
    await expectTop(page, Q3, want3);
    const third = server.bytes.slice(third0);
    console.log(`[rows] first question: ${total(first)} bytes in ${first.length} responses (${blockPaths(first).length} blocks); `
      + `second: ${total(second)} bytes, ${blockPaths(second).length} blocks; third: ${total(third)} bytes, ${blockPaths(third).length} blocks`);
    console.log(`[rows] first question's files: ${first.filter((b) => !b.path.startsWith(BLOCKS)).map((b) => `${b.path} ${b.bytes}`).join(', ')}`);
    // The head (tokenizer and layers, exact) and the worker's module; figures in BENCHMARKS.md.
    assert.ok(total(first) <= 3 * MIB, `${total(first)} bytes: ${first.map((b) => b.path).join(' ')}`);
    for (const later of [second, third]) {
      assert.deepEqual(later.map((b) => b.path).filter((p) => !p.startsWith(BLOCKS)), [], 'only blocks of rows');
    }
    const all = blockPaths(server.bytes);
    assert.equal(new Set(all).size, all.length, 'no block fetched twice');
    // A reload: the head from IndexedDB, the blocks from Cache Storage.
    const reload0 = server.bytes.length;
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.check('#voir-sens-local');
    await expectTop(page, Q2, want2);
    assert.deepEqual(server.bytes.slice(reload0).map((b) => b.path).filter((p) => p.startsWith('data/modele-local/')), []);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await server.close();
  }
});

test('a block cut mid-body is fetched again; one that keeps failing (too short, then 404) is said, the page stays usable, and nothing wrong is cached', { skip: !present }, async () => {
  const faults = { [BLOCKS]: { prefix: true, kind: 'cut', times: 1 } };
  const server = await serveDist({ faults });
  const { page, context, problems } = await openPage(browser, server.url);
  try {
    await page.waitForSelector('body[data-ready="true"]');
    await page.check('#voir-sens-local');
    // The first block request is cut: tried again, and the question ranks as the terminal's.
    await expectTop(page, Q1, await terminalTop(Q1));
    assert.equal(faults[BLOCKS].seen, 1);
    const cut = blockPaths(server.bytes)[0];
    assert.equal(blockPaths(server.bytes).filter((p) => p === cut).length, 2, `${cut} fetched again`);
    // Every block answer too short (a complete-looking response): said after the tries.
    Object.assign(faults[BLOCKS], { kind: 'short', times: 1000 });
    await page.fill('#question', Q2);
    // Said where the page says why a method shown cannot run.
    const said = page.locator('#indisponibles');
    await said.filter({ hasText: /n'a pas pu charger les lignes/ }).waitFor({ timeout: 60000 });
    assert.match(await said.textContent(), /octets reçus, incomplets ou endommagés/);
    // The page stays usable: the keyword columns answer the question.
    assert.ok(await page.locator('#colonne-mots li.resultat').count() > 0);
    // Then 404s: said the same way, for another question.
    Object.assign(faults[BLOCKS], { kind: '404', times: 1000 });
    await page.fill('#question', Q3);
    await said.filter({ hasText: /le serveur a répondu 404/ }).waitFor({ timeout: 60000 });
    // The site answers again: a typed question retries, and the cache held nothing wrong (a
    // reload ranks every question as the terminal does).
    faults[BLOCKS].times = 0;
    await expectTop(page, Q2, await terminalTop(Q2));
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.check('#voir-sens-local');
    await expectTop(page, Q1, await terminalTop(Q1));
    await expectTop(page, Q2, await terminalTop(Q2));
    // The failed fetches are the point: only they may be reported.
    const others = problems.filter((p) => !p.includes(BLOCKS) && !/Failed to load resource.*404/.test(p));
    assert.deepEqual(others, []);
  } finally {
    await context.close();
    await server.close();
  }
});

test('rt3-b4 a block request that hangs is abandoned and tried again; blocks that all hang are said in « indisponibles », and the next question retries; rt4-r5 the waiting column says so and drops the previous results', { skip: !present }, async () => {
  const faults = { [BLOCKS]: { prefix: true, kind: 'hang', times: 3 } };
  const server = await serveDist({ faults });
  const { page, context, problems } = await openPage(browser, server.url);
  try {
    await page.waitForSelector('body[data-ready="true"]');
    await page.check('#voir-sens-local');
    // Three requests hang: each abandoned after its stall and tried again.
    await expectTop(page, Q1, await terminalTop(Q1));
    assert.equal(faults[BLOCKS].seen, 3);
    // Every request hangs: said, with why, while the keyword columns answer.
    Object.assign(faults[BLOCKS], { times: 1000 });
    await page.fill('#question', Q2);
    // rt4-r5: the column that waits for its blocks says so inside itself, and the previous
    // question's results are gone from it.
    // (After a moment: blocks that arrive at once flash nothing, see worker.test.mjs.)
    const column = page.locator('#colonne-sens-local');
    const line = column.locator('.attente-lignes');
    await line.filter({ hasText: /Chargement des lignes du modèle local pour cette question/ }).waitFor({ state: 'visible', timeout: 20000 });
    await column.locator('ol.resultats').waitFor({ state: 'hidden', timeout: 5000 });
    const said = page.locator('#indisponibles');
    await said.filter({ hasText: /n'a pas pu charger les lignes/ }).waitFor({ timeout: 90000 });
    assert.match(await said.textContent(), /pas de réponse en 10\s?s/);
    assert.ok(await page.locator('#colonne-mots li.resultat').count() > 0);
    // The site answers again: the next question fetches what it needs.
    faults[BLOCKS].times = 0;
    await expectTop(page, Q3, await terminalTop(Q3));
    // Only the blocks' failed requests may be reported: no unhandled rejection (rt4-r7).
    const others = problems.filter((p) => !p.includes(BLOCKS));
    assert.deepEqual(others, []);
  } finally {
    await context.close();
    await server.close();
  }
});

/** The URLs of Cache Storage's entries for block `name` (e.g. '00012.xz'), in every cache. */
const cachedAs = (page, name) => page.evaluate(async (n) => {
  const found = [];
  for (const key of await caches.keys()) {
    const cache = await caches.open(key);
    for (const r of await cache.keys()) if (r.url.endsWith(`/${n}`)) found.push(`${key} ${r.url}`);
  }
  return found;
}, name);

test('rt4-r3 a block forged with this table\'s header and a recomputed checksum is refused, said and never kept; a forged copy an earlier visit cached is refused and fetched again', { skip: !present }, async () => {
  const FORGED = `${BLOCKS}00012.xz`;
  const overrides = { [FORGED]: forgedBlock(12) };
  const server = await serveDist({ overrides });
  const { page, context, problems } = await openPage(browser, server.url);
  try {
    await page.waitForSelector('body[data-ready="true"]');
    await page.check('#voir-sens-local');
    // Q2 needs block 12 (the red team's question): the forged answer is refused at each try.
    await page.fill('#question', Q2);
    const said = page.locator('#indisponibles');
    await said.filter({ hasText: /le bloc 12 des lignes du modèle n'a pas pu être chargé/ }).waitFor({ timeout: 60000 });
    assert.match(await said.textContent(), /différent de celui que nomme la tête du modèle/);
    assert.equal(await page.locator('#colonne-sens-local li.resultat').count(), 0, 'no list from a refused block');
    assert.deepEqual(await cachedAs(page, '00012.xz'), [], 'the forged block is not kept');
    // The site healed: the next question fetches block 12 again and ranks as the terminal.
    delete overrides[FORGED];
    const want2 = await terminalTop(Q2);
    await expectTop(page, Q1, await terminalTop(Q1));
    await expectTop(page, Q2, want2);
    // An earlier visit's forged copy in the cache (as the red team's build kept it): refused on
    // reading, deleted, fetched again, and the ranking is the terminal's after a reload.
    const [entry] = await cachedAs(page, '00012.xz');
    assert.ok(entry, 'the genuine block is kept');
    const [cacheName, url] = entry.split(' ');
    const forged = [...forgedBlock(12)];
    await page.evaluate(async ([name, u, bytes]) => {
      const cache = await caches.open(name);
      await cache.put(u, new Response(new Uint8Array(bytes)));
    }, [cacheName, url, forged]);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    const reload0 = server.requests.length;
    await page.check('#voir-sens-local');
    await expectTop(page, Q2, want2);
    assert.ok(server.requests.slice(reload0).some((p) => p.endsWith('/lignes/00012.xz')), 'block 12 fetched again');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await server.close();
  }
});

test('a host that does not serve the worker\'s gzipped files: the plain module and glue are fetched, and the local model ranks as the terminal', { skip: !present }, async () => {
  const gz = ['encodeur-rapide_bg.wasm.gz', 'encodeur-rapide.js.gz', 'encodeur_bg.wasm.gz', 'encodeur.js.gz'];
  const faults = Object.fromEntries(gz.map((p) => [p, { kind: '404', times: 1000 }]));
  const server = await serveDist({ faults });
  const { page, context, problems } = await openPage(browser, server.url);
  try {
    await page.waitForSelector('body[data-ready="true"]');
    await page.check('#voir-sens-local');
    await expectTop(page, Q1, await terminalTop(Q1));
    const served = server.bytes.map((b) => b.path).filter((p) => /^encodeur-rapide[^/]*\.(js|wasm)$/.test(p));
    assert.deepEqual(served, ['encodeur-rapide_bg.wasm', 'encodeur-rapide.js']);
    // Only the refused gzipped files may be reported.
    assert.deepEqual(problems.filter((p) => !gz.some((f) => p.endsWith(`/${f}`) || p.includes(`/${f} `))), []);
  } finally {
    await context.close();
    await server.close();
  }
});
