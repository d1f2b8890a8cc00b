// The local encoder's Web Worker (issue 14): a question superseded while the worker is busy is
// never embedded, a question is served between two fiches of a catalogue being embedded, and a
// worker that dies or refuses its model is said in French while the rest of the page goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { openPage, suite, enterKey, LOCAL_MODEL, localModelPresent } from './harness.mjs';

let browser;
let server;
suite((s) => ({ browser, server } = s));

const MODEL = LOCAL_MODEL;
const present = localModelPresent("the local encoder's worker tests");

// Records every reply the page receives from its workers, in order (window.replies).
async function recordReplies(page) {
  await page.addInitScript(() => {
    window.replies = [];
    const Native = window.Worker;
    window.Worker = class extends Native {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (e) => window.replies.push(e.data));
      }
    };
  });
}

const A = 'Une colle pour la faïence de la cuisine';
const B = 'Isoler les combles en soufflant';
const column = '#colonne-sens-local li.resultat';
const settled = () => document.querySelectorAll('#colonne-sens-local li.resultat').length === 5
  && !document.querySelector('[data-methode="sens local"] p[role="status"]')
  && !document.querySelector('#colonne-sens-local[aria-busy]');
const ids = (page) => page.locator(column).evaluateAll((lis) => lis.map((li) => li.getAttribute('data-id')));

test('a question superseded while the worker is busy with the model is never embedded: only the newest is, and its results are shown', { skip: !present }, async () => {
  const { page, context, problems } = await openPage(browser, null);
  await recordReplies(page);
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.check('#voir-sens-local');
  // A, then B at once: both reach the worker while it waits for (then prepares) the model.
  await page.fill('#question', A);
  await page.fill('#question', B);
  await page.waitForFunction(settled, null, { timeout: 60000 });
  const embedded = await page.evaluate(() => window.replies.filter((r) => r.kind === 'Question').map((r) => r.text));
  assert.deepEqual(embedded, [B], 'A was superseded before the worker reached it');
  const kinds = await page.evaluate(() => window.replies.map((r) => r.kind));
  assert.equal(kinds[0], 'Started');
  assert.ok(kinds.includes('Ready'), kinds.join(' '));
  const shown = await ids(page);
  // Model ready: while a new question is embedded the column keeps its results (marked busy),
  // never a status line between two keystrokes.
  await page.evaluate(() => {
    window.flashes = 0;
    new MutationObserver(() => {
      if (document.querySelector('#colonne-sens-local p[role="status"]')) window.flashes += 1;
    }).observe(document.body, { subtree: true, childList: true });
  });
  // The same question typed again after another: the list is B's (its vector is kept).
  await page.fill('#question', A);
  await page.waitForFunction(
    (a) => window.replies.some((r) => r.kind === 'Question' && r.text === a), A, { timeout: 30000 });
  await page.waitForFunction(settled);
  assert.notDeepEqual(await ids(page), shown, 'A ranks other fiches than B');
  await page.fill('#question', B);
  await page.waitForFunction(settled);
  assert.deepEqual(await ids(page), shown);
  assert.equal(await page.evaluate(() => window.flashes), 0, 'no status line flashed');
  assert.deepEqual(problems, []);
  await context.close();
});

test('while the worker embeds a learner\'s catalogue, a typed question is embedded between two fiches, before the catalogue ends', { skip: !present }, async () => {
  const fiches = await readFile(new URL('../../data/fiches.jsonl', import.meta.url));
  const questions = await readFile(new URL('../../data/questions.csv', import.meta.url));
  const { page, context, problems } = await openPage(browser, null);
  await recordReplies(page);
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  const file = (name, buffer) => ({ name, mimeType: 'application/octet-stream', buffer });
  await page.setInputFiles('#fichiers', [file('mes-fiches.jsonl', fiches), file('mes-questions.csv', questions)]);
  await page.waitForFunction(() => /vos données/.test(document.querySelector('#resume').textContent));
  await page.check('#voir-sens-local');
  // The worker has started on the catalogue's texts.
  await page.waitForFunction(() => window.replies.some((r) => r.kind === 'Progress'), null, { timeout: 120000 });
  // Forgetting a Mistral key has nothing to do with the local encoder: its work goes on.
  await enterKey(page, 'cle-de-test-0123456789abcdef');
  await page.click('#oublier');
  await page.fill('#question', B);
  await page.waitForFunction((b) => window.replies.some((r) => r.kind === 'Question' && r.text === b), B, { timeout: 60000 });
  const order = await page.evaluate(() => window.replies.map((r) => r.kind));
  assert.ok(!order.includes('Texts'), `the question came back before the catalogue's vectors: ${order.join(' ')}`);
  await page.waitForFunction(() => window.replies.some((r) => r.kind === 'Texts'), null, { timeout: 120000 });
  const done = await page.evaluate(() => window.replies.filter((r) => r.kind === 'Progress').map((r) => r.done));
  assert.deepEqual(done, [...done].sort((a, b) => a - b), `progress never went back: ${done.join(' ')}`);
  // The page stayed on the catalogue's progress meanwhile, then ranks with both.
  await page.waitForFunction(settled, null, { timeout: 120000 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a worker whose module cannot start is said in French, and the page goes on with the other methods; rt4-r4 once its module is served, the next question starts it again, without a reload', { skip: !present }, async () => {
  const { page, context, problems } = await openPage(browser, null);
  // Served, but not WebAssembly: the worker's start fails and it reports the error.
  await page.route('**/encodeur*_bg.wasm*', (route) => route.fulfill({ status: 200, contentType: 'application/wasm', body: 'pas du wasm' }));
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.check('#voir-sens-local');
  await page.fill('#question', A);
  const line = page.locator('#indisponibles .local-indisponible');
  await line.waitFor({ timeout: 60000 });
  const text = await line.textContent();
  assert.match(text, /^sens local\s: Le calcul local n'a pas pu démarrer \(.*CompileError.*\)\. Tapez une autre question pour réessayer\s; les autres méthodes restent utilisables\.$/);
  // Still usable: another question ranks under mots.
  await page.fill('#question', B);
  await page.waitForFunction(() => document.querySelectorAll('#colonne-mots li.resultat').length === 5);
  assert.match(await page.locator('#colonne-mots li.resultat').first().textContent(), /\S/);
  // The module served again (a network back, a deploy finished): the next question starts a new
  // worker, which is given the model and ranks.
  await page.unroute('**/encodeur*_bg.wasm*');
  await page.fill('#question', 'Un isolant qui ne brûle pas');
  await page.waitForFunction(() => document.querySelectorAll('#colonne-sens-local li.resultat').length === 5, null, { timeout: 60000 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a model file the worker refuses comes back as a French message, not a dead worker', { skip: !present }, async () => {
  const { page, context, problems } = await openPage(browser, null);
  await recordReplies(page);
  await page.route(`**/${MODEL}`, (route) => route.fulfill({ status: 200, contentType: 'application/octet-stream', body: Buffer.alloc(4096, 7) }));
  // A build whose manifest names no model hash: the worker reads the file and refuses its format
  // (with the hash named, the hash check refuses it first: model-cache.test.mjs).
  await page.route('**/data/manifeste.json', async (route) => {
    const manifest = await (await route.fetch()).json();
    delete manifest.modele_local_tete;
    await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(manifest) });
  });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.check('#voir-sens-local');
  await page.fill('#question', A);
  await page.locator('#indisponibles .local-indisponible').waitFor({ timeout: 60000 });
  assert.match(await page.locator('#indisponibles .local-indisponible').textContent(), /^sens local\s: Le modèle local est refusé\s: ce n'est pas un fichier de modèle lisible, tronqué ou d'un autre format \(.+\)\. Sens local ne peut pas plonger de nouvelle question\.$/);
  const refused = await page.evaluate(() => window.replies.filter((r) => r.kind === 'Refused').length);
  assert.equal(refused, 1);
  await page.fill('#question', B);
  await page.waitForFunction(() => document.querySelectorAll('#colonne-mots li.resultat').length === 5);
  assert.deepEqual(problems, []);
  await context.close();
});
