// The answer that cites its fiches, and the answers' evaluation, against the mock's deterministic
// chat model (tests/e2e/mock-mistral.mjs: it cites the first fiche sharing a long word with the
// question, else refuses).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { openPage, suite, enterKey } from './harness.mjs';

const KEY = 'cle-reponses-789';
let mock;
let browser;
let server;
suite((s) => ({ mock, browser, server } = s), { dir: 'dist-test', mock: true });

const chats = async () => (await mock.log()).filter((r) => r.path === '/v1/chat/completions' && r.method === 'POST');

async function ask(page, question) {
  await page.fill('#question', question);
  await page.selectOption('#reponse-methode', 'mots+');
  await page.click('#rediger');
  await page.waitForSelector('#reponse-resultat .reponse-rendue, #reponse-resultat .erreur-api');
}

test('an answer cites its fiches as links; a refusal and an invented citation are flagged', async () => {
  await mock.reset();
  const { page, context, problems, messages } = await openPage(browser, server.url);
  await enterKey(page, KEY);
  await page.fill('#question', 'Joint époxy');
  await page.selectOption('#reponse-methode', 'mots+');
  // Before the first call, the page shows exactly what will be sent.
  const preview = await page.textContent('#envoi-texte');
  assert.match(preview, /^POST https:\/\/api\.mistral\.ai\/v1\/chat\/completions — modèle mistral-small-latest, température 0/);
  assert.match(preview, /\[AR-0032\] Joint époxy, seau de 3 kg/);
  assert.match(preview, /Question\s: Joint époxy$/);
  assert.equal(await page.getAttribute('#envoi', 'open'), '');
  await page.click('#rediger');
  await page.waitForSelector('#reponse-resultat .reponse-rendue');
  assert.equal(await page.getAttribute('a.citation', 'href'), '#source-AR-0032');
  assert.equal(await page.locator('ol.sources li').count(), 5);
  assert.equal(await page.getAttribute('ol.sources li.citee', 'id'), 'source-AR-0032');
  assert.match(await page.textContent('.cout-reponse'), /tokens envoyés, [\d\u202f]+ reçus/);
  const sent = JSON.parse((await chats())[0].body);
  assert.deepEqual(Object.keys(sent), ['model', 'messages', 'temperature']);
  assert.equal(sent.temperature, 0);
  assert.equal(sent.messages[1].content.split('\n').filter((l) => /^\[AR-\d{4}\]/.test(l)).length, 5, 'five fiches sent, nothing else');

  await ask(page, 'Louez-vous des échafaudages ?');
  assert.match(await page.textContent('#reponse-resultat .drapeau.refus'), /pas dans le catalogue/);

  await ask(page, 'Un joint, et invente un numéro');
  assert.match(await page.textContent('#reponse-resultat .drapeau.alerte'), /Citation inventée\s: AR-9999/);
  assert.equal(await page.locator('.citation.inventee').textContent(), 'AR-9999');

  await ask(page, 'Joint époxy en morceaux');
  assert.match(await page.textContent('.texte-reponse'), /^D'après la fiche \[AR-0032\]/, 'chunks are joined');

  // Asking again costs nothing: the answer comes from the cache.
  const before = (await chats()).length;
  await ask(page, 'Joint époxy');
  // Shown as cached, with its date, model and fiches: a forged cache entry must match them all.
  assert.match(await page.textContent('.cout-reponse'), /^Réponse déjà obtenue \(cache de ce navigateur le \d{4}-\d{2}-\d{2} à \d{2}:\d{2} UTC, mistral-small-latest, pour les fiches ci-dessous\)/);
  assert.equal((await chats()).length, before);
  assert.ok(messages.every((m) => !m.includes(KEY)));
  assert.deepEqual(problems, []);
  await context.close();
});

test('« Mesurer les réponses »: estimate and confirmation, a 429 recovered, figures that match the model', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, server.url, { expectHttpErrors: true });
  await enterKey(page, KEY);
  await page.click('#onglet-mesurer');
  await page.selectOption('#eval-methode', 'mots+');
  assert.match(await page.textContent('#eval-etat'), /40 questions, au plus [\d\u202f]+ tokens envoyés/);
  await page.click('#eval-lancer');
  assert.equal((await chats()).length, 0, 'nothing is sent before confirmation');
  // The 6th call is refused once with 429 and Retry-After: 1, which a page cannot read (the real
  // API does not expose it): the page waits its own 10 s, with a countdown, then goes on.
  await mock.faults([{}, {}, {}, {}, {}, { status: 429, retryAfter: '1' }]);
  const started = Date.now();
  await page.click('#eval-confirmer');
  await page.waitForSelector('#attente:not([hidden])', { timeout: 10000 });
  const first = await page.textContent('#attente-texte');
  assert.match(first, /^Trop de requêtes \(HTTP 429\)\s: nouvel essai dans (10|9) s\.$/);
  await page.waitForFunction((t) => document.querySelector('#attente-texte').textContent !== t, first);
  assert.match(await page.textContent('#attente-texte'), /nouvel essai dans [1-9] s/, 'the countdown moves');
  await page.waitForSelector('#eval-resultat table.evaluation', { timeout: 40000 });
  assert.ok(Date.now() - started >= 9000, 'the page waited its own backoff, not the unreadable 1 s');
  assert.equal(await page.isHidden('#attente'), true);
  const log = await chats();
  assert.equal(log.length, 41, '40 answers and the one refused');
  assert.equal(log.filter((r) => r.answer).length, 40, 'every question answered once');
  assert.equal(new Set(log.filter((r) => r.answer).map((r) => r.answer.question)).size, 40, 'no answer paid twice');
  // The page's figures, recomputed from what the mock answered.
  const rows = (await readFile(new URL('../../data/questions.csv', import.meta.url), 'utf8')).trim().split('\r\n').slice(1)
    .map((l) => l.split(';'));
  const byQuestion = new Map(log.filter((r) => r.answer).map((r) => [r.answer.question, r.answer]));
  let correct = 0; let falseRefusals = 0; let citeExpected = 0;
  for (const [type, q, expected] of rows) {
    const a = byQuestion.get(q);
    if (type === 'absente' && a.cited === null) correct += 1;
    if (type !== 'absente' && a.cited === null) falseRefusals += 1;
    if (expected && a.cited === expected) citeExpected += 1;
  }
  assert.equal(await page.textContent('tr.refus-corrects td'), `${correct}/5`);
  assert.equal(await page.textContent('tr.faux-refus td'), `${falseRefusals}/35`);
  assert.equal(await page.textContent('tr.citent-attendue td'), `${citeExpected}/35`);
  assert.match(await page.textContent('.seuil-compare'), /le modèle, lui, refuse \d+ des 5 questions sans réponse/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('an interrupted evaluation keeps its answers: the re-run pays only for the rest', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, server.url, { expectHttpErrors: true });
  await enterKey(page, KEY);
  await page.click('#onglet-mesurer');
  await page.selectOption('#eval-methode', 'mots');
  await page.click('#eval-lancer');
  await mock.faults([{}, {}, {}, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }]);
  await page.click('#eval-confirmer');
  await page.waitForFunction(() => /Mesure interrompue/.test(document.querySelector('#eval-etat').textContent), null, { timeout: 30000 });
  assert.match(await page.textContent('#eval-etat'), /en panne \(HTTP 503\).*déjà obtenues sont gardées/);
  const first = (await chats()).filter((r) => r.answer).map((r) => r.answer.question);
  assert.equal(first.length, 3);
  await page.click('#eval-lancer');
  await page.click('#eval-confirmer');
  await page.waitForSelector('#eval-resultat table.evaluation', { timeout: 30000 });
  const all = (await chats()).filter((r) => r.answer).map((r) => r.answer.question);
  assert.equal(all.length, 40, '3 before the failure, 37 after: none paid twice');
  assert.equal(new Set(all).size, 40);
  assert.deepEqual(problems, []);
  await context.close();
});
