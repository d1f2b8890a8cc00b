// « sens local » and « hybride local » (issue 13): the local encoder's methods for a learner with
// no key. Their measurement ships with the page (no model request); a typed question fetches the
// model once, with its progress, and ranks; a reload reads the model from this browser's cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, suite, ranked, LOCAL_MODEL, localModelPresent } from './harness.mjs';

let browser;
let server;
suite((s) => ({ browser, server } = s));

const MODEL = LOCAL_MODEL;
const present = localModelPresent("the local encoder's page tests");

test('a fresh page with no key measures sens local and hybride local without fetching the model', { skip: !present }, async () => {
  const { page, context, problems } = await openPage(browser, null);
  const models = [];
  page.on('request', (r) => { if (r.url().endsWith(MODEL)) models.push(r.url()); });
  await page.goto(server.url + '#vue=mesurer');
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForSelector('table.comparaison[data-type="courante"] tr[data-methode="hybride local"]');
  const row = (kind, m) => page.locator(`table.comparaison[data-type="${kind}"] tr[data-methode="${m}"]`);
  // The figures mesurer --all prints (README): the shipped vectors are our encoder's.
  assert.equal(await ranked(row('exacte', 'sens local').locator('.hit1')), '14/15');
  assert.equal(await ranked(row('courante', 'sens local').locator('.hit1')), '11/20');
  assert.equal(await ranked(row('courante', 'sens local').locator('.hit5')), '18/20');
  assert.equal(await ranked(row('courante', 'hybride local').locator('.hit5')), '19/20');
  assert.deepEqual(models, [], 'no request for the model');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a typed question with sens local shown fetches the model once, shows its progress, ranks; a reload uses the cache', { skip: !present }, async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  const models = [];
  page.on('request', (r) => { if (r.url().endsWith(MODEL)) models.push(r.url()); });
  // Every status the column shows while the model comes, recorded as it changes.
  await page.evaluate(() => {
    window.statuses = [];
    new MutationObserver(() => {
      const p = document.querySelector('[data-methode="sens local"] p[role="status"]');
      if (p && window.statuses.at(-1) !== p.textContent) window.statuses.push(p.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.check('#voir-sens-local');
  await page.check('#voir-hybride-local');
  await page.fill('#question', 'Une plaque de plâtre pour une pièce humide');
  const results = page.locator('#colonne-sens-local li.resultat');
  await results.first().waitFor({ timeout: 60000 });
  assert.equal(await results.count(), 5);
  assert.equal(await page.locator('#colonne-hybride-local li.resultat').count(), 5);
  const statuses = await page.evaluate(() => window.statuses);
  assert.ok(statuses.some((t) => /^Chargement du modèle local/.test(t)), statuses.join(' | '));
  assert.equal(models.length, 1, 'the model is fetched once');
  // Another question: embedded here, no new request.
  await page.fill('#question', 'Isoler les combles en soufflant');
  await page.waitForFunction(() => document.querySelectorAll('#colonne-sens-local li.resultat').length === 5
    && !document.querySelector('[data-methode="sens local"] p[role="status"]')
    && !document.querySelector('#colonne-sens-local[aria-busy]'));
  assert.equal(models.length, 1);
  // A reload: the model comes from IndexedDB.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await page.check('#voir-sens-local');
  await page.fill('#question', 'Une colle pour la faïence de la cuisine');
  await page.locator('#colonne-sens-local li.resultat').first().waitFor({ timeout: 60000 });
  assert.equal(models.length, 1, 'the reload reads the model from the cache');
  assert.deepEqual(problems, []);
  await context.close();
});

test('« Vos données » with sens local shown: the page embeds the fiches and questions with its own encoder, with progress, and measures as the shipped vectors do', { skip: !present }, async () => {
  const { readFile } = await import('node:fs/promises');
  const fiches = await readFile(new URL('../../data/fiches.jsonl', import.meta.url));
  const questions = await readFile(new URL('../../data/questions.csv', import.meta.url));
  const { page, context, problems } = await openPage(browser, server.url);
  await page.evaluate(() => {
    window.statuses = [];
    new MutationObserver(() => {
      const p = document.querySelector('[data-methode="sens local"] p[role="status"]');
      if (p && window.statuses.at(-1) !== p.textContent) window.statuses.push(p.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  // The exercise's own files under other names: the page cannot use the shipped vectors' file
  // (it is a learner's catalogue), so it must compute every vector itself.
  const file = (name, buffer) => ({ name, mimeType: 'application/octet-stream', buffer });
  await page.setInputFiles('#fichiers', [file('mes-fiches.jsonl', fiches), file('mes-questions.csv', questions)]);
  await page.waitForFunction(() => /vos données/.test(document.querySelector('#resume').textContent));
  await page.check('#voir-sens-local');
  await page.check('#voir-hybride-local');
  await page.waitForFunction(() => window.statuses.some((t) => /^Calcul des vecteurs du modèle local pour vos fiches et vos questions\s: [\d  ]+ sur [\d  ]+…/.test(t)), null, { timeout: 120000 });
  await page.fill('#question', 'Une plaque de plâtre pour une pièce humide');
  await page.locator('#colonne-sens-local li.resultat').first().waitFor({ timeout: 120000 });
  await page.click('#onglet-mesurer');
  const row = (kind, m) => page.locator(`table.comparaison[data-type="${kind}"] tr[data-methode="${m}"]`);
  await row('courante', 'hybride local').waitFor({ timeout: 60000 });
  // The figures of the vectors computed natively and shipped: the page's encoder is the same.
  assert.equal(await ranked(row('exacte', 'sens local').locator('.hit1')), '14/15');
  assert.equal(await ranked(row('courante', 'sens local').locator('.hit1')), '11/20');
  assert.equal(await ranked(row('courante', 'sens local').locator('.hit5')), '18/20');
  assert.equal(await ranked(row('courante', 'hybride local').locator('.hit5')), '19/20');
  assert.deepEqual(problems, []);
  await context.close();
});
