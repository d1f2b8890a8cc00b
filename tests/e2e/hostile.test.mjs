// A hostile or careless user (issue « every break a hostile user found becomes a test »): the key
// forgotten or emptied mid-run, a key a header cannot carry, a failed batch re-run, IndexedDB
// blocked or missing, and a shared origin (`*.github.io`). Each was a break of the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import { serveDist, launch, openPage, MOCK_PORT, enterKey, settings, serveWithVectors, giantCatalogue } from './harness.mjs';
import { startMock } from './mock-mistral.mjs';

const KEY = 'cle-hostile-7';
let mock;
let browser;
let server;
let shipped; // with fiche vectors (no question vectors), made by `vecteurs` through the mock

before(async () => {
  mock = await startMock(MOCK_PORT);
  browser = await launch();
  server = await serveDist({ dir: 'dist-test' });
  ({ server: shipped } = await serveWithVectors(KEY));
});
after(async () => {
  await browser?.close();
  await server?.close();
  await shipped?.close();
  await mock?.close();
});

test('« Mesurer sens et hybride » cannot be started twice: a key edit while it runs does not re-enable it', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, shipped.url);
  await enterKey(page, KEY);
  await page.click('#onglet-mesurer');
  await mock.faults([{ delayMs: 1500 }]);
  await page.click('#mesurer-sens');
  await enterKey(page, `${KEY}x`);
  await enterKey(page, KEY);
  await page.click('#onglet-mesurer');
  assert.equal(await page.isDisabled('#mesurer-sens').catch(() => true), true);
  await page.waitForSelector('section.methode[data-methode="sens"]', { state: 'attached', timeout: 20000 });
  const embeds = (await posts('/v1/embeddings')).length;
  assert.ok(embeds <= 2, `${embeds} embedding requests for one measurement`);
  const inputs = (await posts('/v1/embeddings')).flatMap((r) => JSON.parse(r.body).input);
  assert.equal(new Set(inputs).size, inputs.length, 'no question embedded twice');
  assert.deepEqual(problems, []);
  await context.close();
});

const posts = async (path) => (await mock.log()).filter((r) => r.method === 'POST' && (!path || r.path === path));

test('« oublier la clé » during « Mesurer les réponses » stops every call: none is sent after', async () => {
  await mock.reset();
  await mock.faults(Array(40).fill({ delayMs: 300 }));
  const { page, context, problems } = await openPage(browser, server.url);
  await enterKey(page, KEY);
  await page.click('#onglet-mesurer');
  await page.selectOption('#eval-methode', 'mots');
  await page.click('#eval-lancer');
  await page.click('#eval-confirmer');
  await page.waitForFunction(() => /^[3-9] réponses sur 40/.test(document.querySelector('#eval-etat').textContent));
  await settings(page);
  await page.click('#oublier');
  const atForget = (await posts('/v1/chat/completions')).length;
  // Every task that could spend the key has ended (the page says so on <body>): nothing can be
  // sent after this without a new gesture.
  await page.waitForSelector('body[data-appels="0"]');
  assert.equal((await posts('/v1/chat/completions')).length, atForget, 'no request after « oublier »');
  assert.match(await page.textContent('#eval-etat'), /la clé a été oubliée/);
  assert.ok(atForget < 40);
  assert.deepEqual(problems, []);
  await context.close();
});

test('emptying the key field forgets the remembered key too: after a reload it is gone', async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  await enterKey(page, KEY);
  await page.check('#retenir');
  assert.equal(await page.evaluate(() => Object.values(localStorage).includes('cle-hostile-7')), true);
  await page.fill('#cle', '');
  assert.equal(await page.evaluate(() => Object.values(localStorage).includes('cle-hostile-7')), false);
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.inputValue('#cle'), '');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a key a header cannot carry is refused at entry, never sent, never shown; the page stays usable', async () => {
  await mock.reset();
  const { page, context, problems, messages } = await openPage(browser, server.url);
  for (const bad of ['cle\u200bcachee', 'clé-accentuée', 'cle\u00a0insecable']) {
    await enterKey(page, bad);
    assert.match(await page.textContent('#cle-etat'), /^Clé refusée avant tout envoi\s: son caractère \d+ \(U\+[0-9A-F]{4}\)/);
    assert.equal(await page.isDisabled('#verifier-cle'), true);
    await page.fill('#question', 'Joint époxy');
    assert.equal(await page.isDisabled('#rediger'), true, 'no key, no paid call');
  }
  assert.deepEqual(await posts(), [], 'nothing sent with a bad key');
  // Corrected, it works at once: nothing stayed stuck.
  await enterKey(page, KEY);
  await page.click('#rediger');
  await page.waitForSelector('#reponse-resultat .reponse-rendue');
  assert.ok(messages.every((m) => !/cachee|accentu|insecable/.test(m)), 'the key never reaches the console');
  assert.equal(await page.locator('text=cachee').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a failed batch keeps the vectors already paid for: the re-run sends only the rest', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, server.url, { expectHttpErrors: true });
  await enterKey(page, KEY);
  // The second batch is refused (a 400 is not retried).
  await mock.faults([{}, { status: 400, body: { object: 'error', message: 'Too many tokens overall, split into more batches.', type: 'invalid_request_message_error', param: null, code: '3210' } }]);
  await page.click('#calculer');
  await page.waitForFunction(() => /Calcul interrompu/.test(document.querySelector('#vecteurs-message').textContent));
  assert.match(await page.textContent('#vecteurs-message'),
    /^Calcul interrompu sur le lot de \d+ fiches AR-\d{4} à AR-\d{4}\s: La requête a été refusée \(HTTP 400\)\s: Too many tokens overall.* Les \d+ vecteurs déjà obtenus sont gardés/);
  await page.click('#calculer');
  await page.waitForFunction(() => /Vecteurs calculés/.test(document.querySelector('#vecteurs-message').textContent));
  const sent = (await posts('/v1/embeddings')).flatMap((r) => JSON.parse(r.body).input);
  // 200 texts embedded and paid once each; only the refused batch's texts were sent twice (the
  // refusal is not billed). Before, the re-run sent all 200 again: 327 texts for 200 fiches.
  const refusedBatch = JSON.parse((await posts('/v1/embeddings'))[1].body).input.length;
  assert.equal(sent.length, 200 + refusedBatch, `${sent.length} texts sent for 200 fiches`);
  assert.equal(new Set(sent).size, 200);
  assert.deepEqual(problems, []);
  await context.close();
});

test('IndexedDB held at an older version by another tab: the page starts anyway, without its cache', async () => {
  const context = await browser.newContext();
  const holder = await context.newPage();
  await holder.goto(`${server.url}data/manifeste.json`);
  // An old tab's connection at version 1, which never closes on versionchange.
  await holder.evaluate(() => new Promise((ok) => {
    const r = indexedDB.open('rag-fiches', 1);
    r.onsuccess = () => { window.held = r.result; ok(); };
  }));
  const app = await context.newPage();
  const errors = [];
  app.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  app.on('pageerror', (e) => errors.push(e.message));
  const started = Date.now();
  await app.goto(server.url);
  await app.waitForSelector('body[data-ready="true"]', { timeout: 15000 });
  assert.ok(Date.now() - started < 15000);
  await app.fill('#question', 'Joint époxy');
  await app.waitForSelector('#colonne-mots li.resultat');
  assert.deepEqual(errors, []);
  await context.close();
});

test('without IndexedDB, computed vectors do not claim to be cached', async () => {
  await mock.reset();
  const context = await browser.newContext();
  await context.addInitScript(() => { Object.defineProperty(window, 'indexedDB', { get: () => undefined }); });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  await enterKey(page, KEY);
  await page.click('#calculer');
  await page.waitForFunction(() => /Vecteurs calculés/.test(document.querySelector('#vecteurs-message').textContent));
  const status = await page.textContent('#vecteurs-etat');
  assert.match(status, /non gardés\s: le stockage du navigateur est indisponible/);
  assert.doesNotMatch(status, /gardés en cache/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('on *.github.io, « retenir sur cet appareil » warns before it stores anything', async () => {
  // The same build, served as a GitHub Pages project page would be: <user>.github.io.
  const pages = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', `--host-resolver-rules=MAP alice.github.io 127.0.0.1`],
  });
  const port = new URL(server.url).port;
  const url = `http://alice.github.io:${port}/rag-fiches/`;
  const { page, context, problems } = await openPage(pages, url);
  await enterKey(page, KEY);
  await page.click('#retenir');
  await page.waitForSelector('#retenir-avertissement:not([hidden])');
  assert.match(await page.textContent('#retenir-avertissement'), /alice\.github\.io est partagé par toutes les pages GitHub Pages de ce compte/);
  assert.equal(await page.evaluate(() => localStorage.length), 0, 'nothing stored before the confirmation');
  assert.equal(await page.isChecked('#retenir'), false);
  await page.click('#retenir-confirmer');
  assert.equal(await page.evaluate(() => Object.values(localStorage).includes('cle-hostile-7')), true);
  assert.equal(await page.isChecked('#retenir'), true);
  assert.equal(await page.isHidden('#retenir-avertissement'), true);
  assert.deepEqual(problems, []);
  await context.close();
  await pages.close();
});

test('76,000 questions (a 2 MB file, within the limits) load, measure and show as pages, not a frozen tab', async () => {
  // The exercise's fiches, and 76,000 short questions: 2 MB, just under the page's limit.
  const fiches = await readFile(new URL('../../data/fiches.jsonl', import.meta.url));
  let text = 'type;question;fiche_attendue\n';
  for (let i = 0; i < 76000; i += 1) {
    text += i % 10 === 9 ? `absente;grue ${i};\n` : `exacte;joint ${i};AR-0032\n`;
  }
  const csv = Buffer.from(text);
  assert.ok(csv.length > 1_900_000 && csv.length <= 2 << 20, `${csv.length} bytes`);
  const file = (name, buffer) => ({ name, mimeType: 'application/octet-stream', buffer });
  const { page, context, problems } = await openPage(browser, server.url);
  await settings(page);
  const started = Date.now();
  await page.setInputFiles('#fichiers', [file('f.jsonl', fiches), file('q.csv', csv)]);
  await page.waitForFunction(() => /76\u202f000 questions|76000 questions/.test(document.querySelector('#resume').textContent), null, { timeout: 120000 });
  const loaded = Date.now() - started;
  await page.click('#onglet-mesurer');
  await page.waitForSelector('table.grille tbody tr');
  const shown = Date.now() - started;
  const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
  console.log(`76,000 questions: loaded in ${loaded} ms, « Mesurer » shown at ${shown} ms, ${elements} elements`);
  assert.ok(elements < 20000, `${elements} elements in the page (685,564 before)`);
  assert.equal(await page.locator('table.grille tbody tr').count(), 200);
  assert.ok(await page.locator('#exemples option').count() <= 3 * 301 + 1);
  await page.click('button[data-grille-plus]');
  await page.waitForFunction(() => document.querySelectorAll('table.grille tbody tr').length === 400);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a 20 MB catalogue of six giant fiches (within the limits) loads and searches: results show excerpts, the request sent is cut, the tab lives', async () => {
  // Six fiches of 3.3 MB of French words, and one question: 20 MB in six texts.
  const { fiches, questions: csv } = giantCatalogue();
  assert.ok(fiches.length > 20_000_000 && fiches.length <= 20 << 20, `${fiches.length} bytes`);
  const file = (name, buffer) => ({ name, mimeType: 'application/octet-stream', buffer });
  const { page, context, problems } = await openPage(browser, server.url);
  let crashed = false;
  page.on('crash', () => { crashed = true; });
  await page.setInputFiles('#fichiers', [file('geantes.jsonl', fiches), file('q.csv', csv)]);
  await page.waitForFunction(() => /^6 fiches/.test(document.querySelector('#resume').textContent), null, { timeout: 120000 });
  await page.fill('#question', 'plaque de plâtre pour pièce humide');
  await page.locator('#colonne-mots li.resultat').first().waitFor({ timeout: 120000 });
  // Each result shows the beginning of its fiche and says it is cut: 32 MB of text were drawn
  // per question before (five results per column), and the page froze for 20 s.
  const drawn = await page.evaluate(() => document.querySelector('#resultats').textContent.length);
  assert.ok(drawn < 100_000, `${drawn} characters drawn in the results`);
  assert.match(await page.locator('#colonne-mots li.resultat .coupe').first().textContent(),
    /les 1\s000 premiers caractères d'une fiche qui en compte 3\s\d{3}\s\d{3}/);
  // The request « Rédiger la réponse » would send carries each fiche cut, and says so.
  const sent = await page.evaluate(() => document.querySelector('#reponse').textContent);
  assert.ok(sent.length < 60_000, `${sent.length} characters in the answer panel`);
  assert.match(sent, /\[…fiche coupée\]/);
  assert.equal(crashed, false);
  assert.deepEqual(problems, []);
  await context.close();
});
