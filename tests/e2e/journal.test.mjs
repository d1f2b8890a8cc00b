// « Questions sans réponse » (issue 15): typed questions the catalogue does not cover — a best
// score under the method's refusal threshold, or the model's « pas dans le catalogue » — kept in
// this browser's IndexedDB, listed, exported, erased; nothing about them ever leaves the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { openPage, suite, enterKey } from './harness.mjs';

let mock;
let browser;
let server;
suite((s) => ({ mock, browser, server } = s), { dir: 'dist-test', mock: true });

const rows = (page) => page.locator('#journal-liste tbody tr');

// The journal as the page stored it in IndexedDB (null: nothing stored yet).
const stored = (page) => page.evaluate(() => new Promise((ok) => {
  const open = indexedDB.open('rag-fiches');
  open.onerror = () => ok(null);
  open.onsuccess = () => {
    const db = open.result;
    const get = db.transaction('journal').objectStore('journal').get('questions-sans-reponse');
    get.onsuccess = () => { db.close(); ok(get.result ?? null); };
    get.onerror = () => { db.close(); ok(null); };
  };
}));

// The page writes its journal to IndexedDB after the change it shows, and a reload in those few
// milliseconds aborts the write (a transaction does not outlive its page; CI caught a reload that
// came first): before reloading, the test waits until the store holds what the page shows.
async function storedAs(page, holds) {
  for (let i = 0; i < 250; i++) {
    const text = await stored(page);
    if (text !== null && holds(text)) return;
    await page.waitForTimeout(20);
  }
  assert.fail(`the journal was not stored as shown: ${JSON.stringify(await stored(page))}`);
}

test('two unanswered questions are journaled, survive a reload, export as JSONL and vanish after « Effacer »', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, server.url);
  // One browser profile for the whole test (the context): the reload keeps its IndexedDB.
  await page.click('#onglet-mesurer');
  assert.equal(await page.textContent('#journal-liste'), 'Aucune question sans réponse pour l\'instant.');
  await page.click('#onglet-chercher');
  // 1. A typed question, committed with Enter: its best scores fall under the thresholds. What
  // was on the way (« Des panneaux sol ») is not committed, so not journaled.
  await page.fill('#question', 'Des panneaux sol');
  await page.fill('#question', 'Des panneaux solaires pour le toit ?');
  await page.press('#question', 'Enter');
  // 2. The model refuses (the mock refuses what shares no long word with the fiches).
  await enterKey(page, 'cle-journal-1');
  await page.fill('#question', 'Louez-vous des échafaudages ?');
  await page.selectOption('#reponse-methode', 'mots+');
  await page.click('#rediger');
  await page.waitForSelector('#reponse-resultat .drapeau.refus');
  await page.click('#onglet-mesurer');
  await page.waitForSelector('#journal-liste tr[data-verdict="modele"]');
  const listed = await rows(page).allTextContents();
  assert.ok(listed.some((r) => r.includes('Des panneaux solaires pour le toit ?') && r.includes('score sous le seuil')), listed.join('\n'));
  assert.ok(listed.some((r) => r.includes('Louez-vous des échafaudages ?') && r.includes('pas dans le catalogue') && r.includes('mistral-small-latest')), listed.join('\n'));
  const questions = await page.locator('#journal-liste tbody th').allTextContents();
  assert.deepEqual([...new Set(questions)].sort(), ['Des panneaux solaires pour le toit ?', 'Louez-vous des échafaudages ?']);
  const n = listed.length;
  // From here on, nothing reaches the mock (or anywhere else).
  const requests = (await mock.log()).length;
  await storedAs(page, (text) => text.trim().split('\n').length === n);
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await page.click('#onglet-mesurer');
  await page.waitForFunction((n) => document.querySelectorAll('#journal-liste tbody tr').length === n, n);
  assert.deepEqual(await rows(page).allTextContents(), listed, 'the same list after a reload');
  const [d] = await Promise.all([page.waitForEvent('download'), page.click('button[data-journal="jsonl"]')]);
  assert.equal(d.suggestedFilename(), 'questions-sans-reponse.jsonl');
  const entries = (await readFile(await d.path(), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(entries.length, n);
  for (const e of entries) {
    assert.deepEqual(Object.keys(e).filter((k) => k !== 'model'), ['date', 'question', 'method', 'best', 'threshold', 'verdict']);
    assert.match(e.date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    if (e.verdict === 'under_threshold') assert.ok(e.best < e.threshold, JSON.stringify(e));
  }
  assert.deepEqual([...new Set(entries.map((e) => e.verdict))].sort(), ['model_refused', 'under_threshold']);
  const [c] = await Promise.all([page.waitForEvent('download'), page.click('button[data-journal="csv"]')]);
  const csv = (await readFile(await c.path(), 'utf8')).trim().split('\n');
  assert.equal(csv[0], 'date;question;methode;meilleur_score;seuil;verdict;modele');
  assert.equal(csv.length, n + 1);
  await page.click('button[data-journal="effacer"]');
  assert.equal(await page.textContent('#journal-liste'), 'Aucune question sans réponse pour l\'instant.');
  await storedAs(page, (text) => text === '');
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await page.click('#onglet-mesurer');
  assert.equal(await page.textContent('#journal-liste'), 'Aucune question sans réponse pour l\'instant.');
  assert.equal((await mock.log()).length, requests, 'no request about the journal');
  assert.deepEqual(problems, []);
  await context.close();
});
