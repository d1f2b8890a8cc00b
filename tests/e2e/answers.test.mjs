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
  // The judge, on a click: it reads the fiches sent, and says NON to the invented citation.
  const beforeJudge = (await chats()).length;
  await page.click('#reponse-resultat button[data-juger]');
  await page.waitForSelector('#reponse-resultat .verdict .drapeau');
  assert.match(await page.textContent('#reponse-resultat .verdict'), /^Le juge \(mistral-small-latest\)\s: NON\s: la réponse affirme/);
  const judged = (await chats()).slice(beforeJudge);
  assert.equal(judged.length, 1);
  assert.equal(judged[0].role, 'judge');
  assert.match(JSON.parse(judged[0].body).messages[1].content, /Réponse : Voyez la fiche \[AR-9999\]\.$/);

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
  // Each question's answer, then its judgement. The 6th call (the third judgement) is refused
  // once with 429 and Retry-After: 1, which a page cannot read (the real API does not expose
  // it): the page waits its own 10 s, with a countdown, then goes on.
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
  assert.equal(log.length, 81, '40 answers, 40 judgements and the one refused');
  const answered = log.filter((r) => r.role === 'answer');
  assert.equal(answered.length, 40, 'every question answered once');
  assert.equal(new Set(answered.map((r) => r.answer.question)).size, 40, 'no answer paid twice');
  const judged = log.filter((r) => r.role === 'judge');
  assert.equal(judged.length, 40, 'every answer judged once');
  // The judge is the cheapest model and reads the answer it judges.
  for (const r of judged) assert.equal(JSON.parse(r.body).model, 'mistral-small-latest');
  assert.match(JSON.parse(judged[0].body).messages[1].content, /\n\nRéponse : /);
  // The page's figures, recomputed from what the mock answered.
  const rows = (await readFile(new URL('../../data/questions.csv', import.meta.url), 'utf8')).trim().split('\r\n').slice(1)
    .map((l) => l.split(';'));
  const byQuestion = new Map(answered.map((r) => [r.answer.question, r.answer]));
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
  // The mock judge finds every citation among the fiches read: 40 OUI.
  assert.match(await page.textContent('tr.fidelite td'), /^100\u202f% \(40 OUI sur 40\)$/);
  assert.equal(await page.locator('#eval-resultat table.reponses-livrees tr[data-methode="mots+"]').count(), 1);
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
  // Answer, judgement, answer, judgement, answer, then the third judgement fails for good.
  await mock.faults([{}, {}, {}, {}, {}, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }]);
  await page.click('#eval-confirmer');
  await page.waitForFunction(() => /Mesure interrompue/.test(document.querySelector('#eval-etat').textContent), null, { timeout: 30000 });
  assert.match(await page.textContent('#eval-etat'), /en panne \(HTTP 503\).*déjà obtenues sont gardées/);
  const first = (await chats()).filter((r) => r.role === 'answer').map((r) => r.answer.question);
  assert.equal(first.length, 3);
  await page.click('#eval-lancer');
  await page.click('#eval-confirmer');
  await page.waitForSelector('#eval-resultat table.evaluation', { timeout: 30000 });
  const all = (await chats()).filter((r) => r.role === 'answer').map((r) => r.answer.question);
  assert.equal(all.length, 40, '3 before the failure, 37 after: none paid twice');
  assert.equal(new Set(all).size, 40);
  assert.deepEqual(problems, []);
  await context.close();
});

test('« tout le catalogue » answers from every fiche; a NON and an illegible verdict are reported, never counted', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, server.url);
  await enterKey(page, KEY);
  await page.click('#onglet-mesurer');
  await page.selectOption('#eval-methode', 'tout le catalogue');
  assert.match(await page.textContent('#eval-etat'), /tokens envoyés pour les réponses .* et [\d\u202f]+ pour le juge/);
  assert.match(await page.textContent('#eval-resultat details.consignes'), /Réponds OUI si chaque affirmation/);
  await page.click('#eval-lancer');
  assert.equal((await chats()).length, 0, 'nothing is sent before confirmation');
  await mock.faults([{}, { verdict: 'NON' }, {}, { verdict: 'Oui, sans doute' }]);
  await page.click('#eval-confirmer');
  await page.waitForSelector('#eval-resultat table.evaluation', { timeout: 60000 });
  const log = await chats();
  const answers = log.filter((r) => r.role === 'answer');
  assert.equal(answers.length, 40);
  const fiches = JSON.parse(answers[0].body).messages[1].content.split('\n').filter((l) => /^\[AR-\d{4}\]/.test(l));
  assert.equal(fiches.length, 200, 'the whole catalogue in the prompt');
  assert.equal(await page.textContent('tr.fidelite td'), '97\u202f% (38 OUI sur 39), 1 verdict(s) illisible(s)');
  assert.match(await page.textContent('details.a-relire[data-methode="tout le catalogue"] summary'), /1 réponse\(s\) jugée\(s\) NON/);
  assert.match(await page.textContent('details.a-relire li'), /Fiches envoyées\u00a0: 200 fiches/);
  const rows = await page.$$eval('#eval-resultat table.reponses-livrees tbody tr', (trs) => trs.map((tr) => tr.dataset.methode));
  assert.deepEqual(rows, ['tout le catalogue']);
  assert.deepEqual(problems, []);
  await context.close();
});

test('« Reclasser les 20 premières »: confirmed before paying, malformed marks reported, the list measured like a method, never paid twice', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, server.url);
  await enterKey(page, KEY);
  await page.click('#onglet-mesurer');
  await page.selectOption('#eval-methode', 'mots+');
  await page.click('#reclasser-lancer');
  assert.match(await page.textContent('#reclasser-etat'), /40 questions, les 20 premières fiches de mots\+ notées par mistral-small-latest/);
  assert.equal((await chats()).length, 0, 'nothing is sent before confirmation');
  await mock.faults([{ omit: true, invent: true }]);
  await page.click('#reclasser-confirmer');
  await page.waitForSelector('#reclasser-resultat table.reclassement', { timeout: 60000 });
  const reranks = (await chats()).filter((r) => r.role === 'rerank');
  assert.equal(reranks.length, 40);
  for (const r of reranks) {
    const lines = JSON.parse(r.body).messages[1].content.split('\n').filter((l) => /^\[AR-\d{4}\]/.test(l));
    assert.equal(lines.length, 20, 'the top 20 read');
  }
  assert.match(await page.textContent('#reclasser-resultat tr[data-methode="mots+"]'), /1 avec une fiche oubliée, 1 avec une fiche inventée/);
  assert.match(await page.textContent('#reclasser-resultat td.plafond'), /\(\d+\/35\)/);
  await page.waitForSelector('table.comparaison tr[data-methode="mots+ reclassé"]', { state: 'attached' });
  // Again: every list comes from the cache.
  await mock.reset();
  await page.click('#reclasser-lancer');
  await page.click('#reclasser-confirmer');
  await page.waitForFunction(() => !document.querySelector('#reclasser-annuler'));
  assert.equal((await chats()).length, 0, 'the same lists are never paid twice');
  assert.deepEqual(problems, []);
  await context.close();
});
