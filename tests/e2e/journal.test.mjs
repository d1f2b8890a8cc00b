// « Questions sans réponse » (issue 15): typed questions the catalogue does not cover — a best
// score under the method's refusal threshold, or the model's « pas dans le catalogue » — kept in
// this browser's IndexedDB, listed, exported, erased; nothing about them ever leaves the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { openPage, openPageIn, suite, enterKey } from './harness.mjs';

let mock;
let browser;
let server;
suite((s) => ({ mock, browser, server } = s), { dir: 'dist-test', mock: true });

const rows = (page) => page.locator('#journal-liste tbody tr');

// The journal as the page stored it in IndexedDB, one record per entry (src/web/tasks/journal.rs),
// as JSON lines in key order ('' when empty; null: nothing could be read).
const stored = (page) => page.evaluate(() => new Promise((ok) => {
  const open = indexedDB.open('rag-fiches');
  open.onerror = () => ok(null);
  open.onsuccess = () => {
    const db = open.result;
    if (!db.objectStoreNames.contains('journal')) { db.close(); ok(null); return; }
    const all = db.transaction('journal').objectStore('journal').getAll(IDBKeyRange.bound('e|', 'e|\uffff'));
    all.onsuccess = () => { db.close(); ok(all.result.map((v) => `${v}\n`).join('')); };
    all.onerror = () => { db.close(); ok(null); };
  };
}));
// The distinct questions of the stored journal.
const storedQuestions = async (page) => [...new Set((await stored(page) ?? '').split('\n').filter(Boolean)
  .map((l) => JSON.parse(l).question))].sort();
// The distinct questions a tab lists in « Questions sans réponse ».
const listedQuestions = async (page) => [...new Set(await page.locator('#journal-liste tbody th').allTextContents())].sort();

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

/** Types `q` in the page's question box and commits it (Enter). */
async function ask(page, q) {
  await page.fill('#question', q);
  await page.press('#question', 'Enter');
}

/** Waits until `page`'s list of questions is `want` (sorted). */
async function listsAs(page, want) {
  try {
    await page.waitForFunction((w) => JSON.stringify([...new Set([...document.querySelectorAll('#journal-liste tbody th')]
      .map((th) => th.textContent))].sort()) === JSON.stringify(w), want, { timeout: 15000 });
  } catch {
    assert.deepEqual(await listedQuestions(page), want);
  }
}

test('rt4-r1 two tabs of one profile journal at once and in turn: every entry is kept, and each tab lists the other\'s', async () => {
  const context = await browser.newContext();
  const a = await openPageIn(context, server.url);
  const b = await openPageIn(context, server.url);
  try {
    const fromA = ['billet avion Tokyo', 'recette de crêpes', 'horaires du cinéma', 'météo de demain à Lyon', 'prix du bitcoin', 'location de voiture'];
    const fromB = ['cours de guitare', 'pizza livrée ce soir', 'match de football', 'vol pour Montréal', 'chaussures de course', 'abonnement au théâtre'];
    // At the same time, 0.7 s apart, as the red team typed (t2-journal.mjs).
    await Promise.all([
      (async () => { for (const q of fromA) { await ask(a.page, q); await a.page.waitForTimeout(700); } })(),
      (async () => { for (const q of fromB) { await ask(b.page, q); await b.page.waitForTimeout(700); } })(),
    ]);
    const all = [...fromA, ...fromB].sort();
    for (const { page } of [a, b]) {
      await page.click('#onglet-mesurer');
      await listsAs(page, all);
    }
    // Then in turn: A, B, A.
    await a.page.click('#onglet-chercher');
    await b.page.click('#onglet-chercher');
    const turns = [[a, 'seq A1 tuile en or'], [a, 'seq A2 vitre en diamant'], [b, 'seq B1 brique en chocolat'],
      [b, 'seq B2 ciment en sucre'], [a, 'seq A3 plâtre en soie']];
    for (const [tab, q] of turns) {
      await ask(tab.page, q);
      await tab.page.waitForTimeout(400);
    }
    const every = [...all, ...turns.map(([, q]) => q)].sort();
    for (const { page } of [a, b]) {
      await page.click('#onglet-mesurer');
      await listsAs(page, every);
    }
    await a.page.waitForFunction(() => true);
    for (let i = 0; i < 100 && (await storedQuestions(a.page)).length < every.length; i++) await a.page.waitForTimeout(50);
    assert.deepEqual(await storedQuestions(a.page), every, 'every entry stored');
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await context.close();
  }
});

test('rt4-r2 « Effacer le journal » in one tab is honoured by the other: its next question does not bring the erased entries back', async () => {
  const context = await browser.newContext();
  const a = await openPageIn(context, server.url);
  const b = await openPageIn(context, server.url);
  try {
    const first = ['mon code de carte bleue 4973', 'billet avion Tokyo', 'recette de crêpes'];
    for (const q of first) await ask(a.page, q);
    await b.page.click('#onglet-mesurer');
    await listsAs(b.page, [...first].sort());
    await b.page.click('button[data-journal="effacer"]');
    assert.equal(await b.page.textContent('#journal-liste'), 'Aucune question sans réponse pour l\'instant.');
    // Tab A hears it: its list empties without a reload.
    await a.page.click('#onglet-mesurer');
    await a.page.waitForFunction(() => document.querySelector('#journal-liste').textContent.includes('Aucune question sans réponse'));
    await a.page.click('#onglet-chercher');
    await ask(a.page, 'horaires du cinéma');
    await a.page.click('#onglet-mesurer');
    await listsAs(a.page, ['horaires du cinéma']);
    await listsAs(b.page, ['horaires du cinéma']);
    for (let i = 0; i < 100 && (await storedQuestions(a.page)).length === 0; i++) await a.page.waitForTimeout(50);
    assert.deepEqual(await storedQuestions(a.page), ['horaires du cinéma']);
    await b.page.reload();
    await b.page.waitForSelector('body[data-ready="true"]');
    await b.page.click('#onglet-mesurer');
    await listsAs(b.page, ['horaires du cinéma']);
    assert.doesNotMatch(await b.page.textContent('#journal-liste'), /carte bleue/);
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await context.close();
  }
});

test('a journal stored by an earlier version (one record of JSON lines) is moved into records and listed', async () => {
  const context = await browser.newContext();
  const a = await openPageIn(context, server.url);
  try {
    const old = ['{"date":"2026-12-01T10:00:00.000Z","question":"ancienne question","method":"mots+","best":1.5,"threshold":5.9,"verdict":"under_threshold"}',
      '{"date":"2026-12-01T10:01:00.000Z","question":"autre ancienne","method":"mots","best":0.5,"threshold":2.1,"verdict":"under_threshold"}'].join('\n') + '\n';
    await a.page.evaluate((text) => new Promise((ok, ko) => {
      const open = indexedDB.open('rag-fiches');
      open.onsuccess = () => {
        const tx = open.result.transaction('journal', 'readwrite');
        tx.objectStore('journal').put(text, 'questions-sans-reponse');
        tx.oncomplete = () => { open.result.close(); ok(); };
        tx.onerror = ko;
      };
      open.onerror = ko;
    }), old);
    await a.page.reload();
    await a.page.waitForSelector('body[data-ready="true"]');
    await a.page.click('#onglet-mesurer');
    await listsAs(a.page, ['ancienne question', 'autre ancienne']);
    assert.deepEqual(await storedQuestions(a.page), ['ancienne question', 'autre ancienne']);
    const left = await a.page.evaluate(() => new Promise((ok) => {
      const open = indexedDB.open('rag-fiches');
      open.onsuccess = () => {
        const get = open.result.transaction('journal').objectStore('journal').get('questions-sans-reponse');
        get.onsuccess = () => { open.result.close(); ok(get.result ?? null); };
      };
    }));
    assert.equal(left, null, 'the old record is gone');
    assert.deepEqual(a.problems, []);
  } finally {
    await context.close();
  }
});
