// « sens » and « hybride » end to end, against the local mock of Mistral's API (no key needed):
// the test build of the page (dist-test/, whose API origin is the mock's, fixed at build time).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { serveDist, launch, openPage, MOCK_PORT, enterKey as typeKey, settings, serveWithVectors, ranked } from './harness.mjs';
import { startMock } from './mock-mistral.mjs';

const KEY = 'cle-de-test-123456';
let mock;
let browser;
let bare;        // the test build as shipped: no vectors file
let shipped;     // the same with vectors made by the terminal (vecteurs, through the mock)
let vectors;

before(async () => {
  mock = await startMock(MOCK_PORT);
  browser = await launch();
  bare = await serveDist({ dir: 'dist-test' });
  ({ server: shipped, vectors } = await serveWithVectors(KEY));
});
after(async () => {
  await browser?.close();
  await bare?.close();
  await shipped?.close();
  await mock?.close();
});

async function enterKey(page, key = KEY) {
  await typeKey(page, key);
}

async function pick(page, text) {
  const value = await page.locator('#exemples option', { hasText: text }).getAttribute('value');
  await page.selectOption('#exemples', value);
}

test('the terminal computes the vectors file through the API with the key, batched', async () => {
  const log = await mock.log();
  const calls = log.filter((r) => r.path === '/v1/embeddings' && r.method === 'POST');
  assert.equal(calls.length, 3, '200 fiches in 3 batches under the token limit');
  for (const c of calls) assert.equal(c.headers.authorization, `Bearer ${KEY}`);
  const inputs = calls.flatMap((c) => JSON.parse(c.body).input);
  assert.equal(inputs.length, 200);
  // A safetensors file: 8-byte header length, JSON header naming the model and the fingerprint.
  const n = Number(vectors.readBigUInt64LE(0));
  const header = JSON.parse(vectors.subarray(8, 8 + n).toString());
  assert.equal(header.__metadata__.model, 'mistral-embed');
  assert.match(header.__metadata__.fingerprint, /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(header.vectors.shape, [200, 1024]);
  assert.equal(header.vectors.dtype, 'F16');
});

test('vectors computed in the page: estimate, progress, cost, cached, downloadable; key never leaks', async () => {
  await mock.reset();
  const { page, context, problems, messages } = await openPage(browser, bare.url);
  assert.match(await page.textContent('#test-build'), /API est simulée/);
  assert.match(await page.textContent('#vecteurs-etat'), /au plus 35\u202f673 tokens/);
  assert.equal(await page.isDisabled('#calculer'), true, 'no key, no computing');
  await enterKey(page);
  assert.equal(await page.evaluate(() => localStorage.length), 0, 'the key stays in memory');
  await page.click('#calculer');
  await page.waitForSelector('#telecharger:not([hidden])');
  assert.match(await page.textContent('#vecteurs-etat'), /200 × 1024 \(mistral-embed\), calculés dans ce navigateur/);
  assert.match(await page.textContent('#couts'), /vecteurs des fiches [1-9][\d\u202f]* tokens/);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#telecharger')]);
  assert.equal(download.suggestedFilename(), 'vecteurs.safetensors');
  const bytes = await readFile(await download.path());
  assert.ok(bytes.equals(vectors), `the page writes the same bytes as the terminal, from the same API (${bytes.length} bytes, terminal ${vectors.length})`);
  // Searching with sens and hybride embeds the question once.
  await pick(page, 'Joint époxy');
  await page.waitForSelector('#colonne-sens li.resultat');
  assert.equal(await page.getAttribute('#colonne-sens li.resultat >> nth=0', 'data-id'), 'AR-0032');
  assert.equal(await page.getAttribute('#colonne-hybride li.resultat >> nth=0', 'data-id'), 'AR-0032');
  await page.locator('#colonne-hybride summary').first().click();
  assert.match(await page.textContent('#colonne-hybride li.resultat >> nth=0'), /mots\s: rang 1 → 1\/\(60 \+ 1\)/);
  // Reloading: the vectors come from IndexedDB, nothing is paid again.
  const before = (await mock.log()).filter((r) => r.method === 'POST').length;
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.match(await page.textContent('#vecteurs-etat'), /gardés en cache/);
  assert.equal((await mock.log()).filter((r) => r.method === 'POST').length, before);
  // The key: sent only as Authorization; preflights ask for exactly two headers; never in the
  // URL, the console or storage.
  const log = await mock.log();
  for (const r of log.filter((r) => r.method === 'OPTIONS')) {
    assert.equal(r.headers['access-control-request-headers'], 'authorization,content-type');
  }
  for (const r of log.filter((r) => r.method === 'POST')) {
    assert.equal(r.headers.authorization, `Bearer ${KEY}`);
    assert.equal(r.search, '');
  }
  assert.ok(!page.url().includes(KEY));
  assert.ok(messages.every((m) => !m.includes(KEY)));
  assert.equal(await page.evaluate(() => localStorage.length), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

// A question committed (Enter) before its embedding came back: its dense methods wait for their
// vector and their dense top, then are journaled. (They were dropped: only the keyword methods,
// which rank at once, reached the journal.) Committed, it is embedded at once, and the next
// question typed straight after does not cancel that.
test('a question committed before its vector arrives is journaled under sens and hybride too', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, shipped.url);
  await enterKey(page);
  await page.click('#onglet-mesurer');
  await page.click('#mesurer-sens');
  await page.waitForSelector('table.comparaison tr[data-methode="hybride+"]');
  await page.click('#onglet-chercher');
  const before = (await mock.log()).filter((r) => r.path === '/v1/embeddings' && r.method === 'POST').length;
  // No word of it is in any fiche: every method's best score is far under its threshold. Enter
  // comes at once, well inside the 400 ms pause in typing before a question is embedded, and the
  // next question is typed at once too.
  const question = 'Vos xylophones zénithaux ?';
  await page.fill('#question', question);
  await page.press('#question', 'Enter');
  await page.fill('#question', 'Et des trombones ?');
  await page.waitForSelector('#colonne-sens li.resultat');
  await page.click('#onglet-mesurer');
  const methods = () => page.evaluate((q) => [...document.querySelectorAll('#journal-liste tbody tr')]
    .filter((tr) => tr.querySelector('th')?.textContent === q)
    .map((tr) => tr.querySelectorAll('td')[1].textContent).sort(), question);
  await page.waitForFunction((q) => [...document.querySelectorAll('#journal-liste tbody th')]
    .filter((th) => th.textContent === q).length >= 4, question);
  assert.deepEqual(await methods(), ['hybride', 'mots', 'mots+', 'sens']);
  const sent = (await mock.log()).filter((r) => r.path === '/v1/embeddings' && r.method === 'POST')
    .slice(before).map((r) => JSON.parse(r.body).input);
  assert.deepEqual(sent, [[question], ['Et des trombones ?']], 'each question embedded once, the committed one first');
  assert.deepEqual(problems, []);
  await context.close();
});

// Only Enter validates a question. Leaving the box (its `change`: a learner who types a question,
// then opens « Réglages » to paste a key) does not: the question typed next cancels it as before,
// and it is never sent. (When leaving counted, the older request outlived the newer question and
// the mock's 429 fell on it, in the clean-clone CI.) The events are dispatched in one task, so no
// 400 ms pause in typing can pass between them.
test('leaving the question box does not validate it: the next question typed cancels it', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, shipped.url);
  await enterKey(page);
  await page.click('#onglet-chercher');
  const before = (await mock.log()).length;
  await page.evaluate(() => {
    const box = document.querySelector('#question');
    box.value = 'Vos xylophones zénithaux ?';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    box.dispatchEvent(new Event('change', { bubbles: true }));
    box.value = 'Et des trombones ?';
    box.dispatchEvent(new Event('input', { bubbles: true }));
  });
  const sent = async () => (await mock.log()).slice(before)
    .filter((r) => r.path === '/v1/embeddings' && r.method === 'POST').map((r) => JSON.parse(r.body).input);
  const deadline = Date.now() + 10000;
  while ((await sent()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await page.waitForSelector('#colonne-sens li.resultat');
  // The last question's vector is back: anything the first one would have sent is sent by now.
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(await sent(), [['Et des trombones ?']]);
  assert.deepEqual(problems, []);
  await context.close();
});

test('shipped vectors: sens and hybride searched and measured, the same as the terminal', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, shipped.url);
  assert.match(await page.textContent('#vecteurs-etat'), /livrés avec la page \(vecteurs\.safetensors\)/);
  // Without a key, sens and hybride are one line saying what they need, never empty columns.
  assert.match(await page.textContent('#indisponibles'), /^sens, hybride\s: il faut votre clé Mistral/);
  await pick(page, 'Un isolant qui ne brûle pas');
  assert.equal(await page.locator('#colonne-sens').count(), 0);
  await enterKey(page);
  await page.waitForSelector('#colonne-sens li.resultat');
  assert.equal(await page.locator('#colonne-hybride li.resultat').count(), 5);
  await page.click('#onglet-mesurer');
  assert.match(await page.textContent('#mesure-sens-etat'), /39 questions restantes\s: au plus [\d\u202f]+ tokens/, 'the typed question is already embedded: the panel follows');
  await page.click('#mesurer-sens');
  await page.waitForSelector('table.comparaison tr[data-methode="hybride+"]');
  // The terminal, on the same vectors and the same fake embedder, prints these figures.
  const golden = await readFile(new URL('../golden/sens-fake.out', import.meta.url), 'utf8');
  const [, e1, e5] = golden.match(/exactes\s: 15\s; bonne fiche en tête\s: (\d+)\s; dans les 5 premières\s: (\d+)/);
  const exactes = page.locator('table.comparaison[data-type="exacte"]');
  assert.equal(await ranked(exactes.locator('tr[data-methode="sens"] .hit1')), `${e1}/15`);
  assert.equal(await ranked(exactes.locator('tr[data-methode="sens"] .hit5')), `${e5}/15`);
  assert.equal(await ranked(exactes.locator('tr[data-methode="hybride"] .hit1')), '15/15');
  // The grid and the strip plots now cover all five methods.
  assert.equal(await page.locator('table.grille thead button[data-tri]').count(), 6);
  assert.equal(await page.locator('.bande-methode').count(), 5);
  const embedCalls = (await mock.log()).filter((r) => r.method === 'POST');
  assert.equal(embedCalls.length, 2, 'one call for the typed question, one for the 39 others');
  assert.equal(JSON.parse(embedCalls[1].body).input.length, 39);
  assert.deepEqual(problems, []);
  await context.close();
});

test('faults: refused key, 429 recovered, 5xx, HTML and truncated bodies, each in plain French', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, shipped.url, { expectHttpErrors: true });
  await enterKey(page, 'refusee');
  await page.fill('#question', 'colle pour carrelage');
  await page.waitForSelector('#colonne-sens .erreur-api');
  assert.match(await page.textContent('#colonne-sens .erreur-api'), /Clé refusée \(HTTP 401\)\s: vérifiez-la sur console\.mistral\.ai/);
  assert.equal((await mock.log()).filter((r) => r.method === 'POST').length, 1, '401 is not retried');

  await enterKey(page);
  // A 429 whose Retry-After (1 s) the page cannot read (the API does not expose it): the page
  // waits its own 10 s, says so with a countdown, and « Réessayer maintenant » cuts it short.
  await mock.faults([{ status: 429, retryAfter: '1' }]);
  await page.fill('#question', 'colle pour faïence');
  await page.waitForSelector('#attente:not([hidden])');
  assert.match(await page.textContent('#attente-texte'), /^Trop de requêtes \(HTTP 429\)\s: nouvel essai dans (10|9) s\.$/);
  await page.click('#reessayer');
  await page.waitForSelector('#colonne-sens li.resultat', { timeout: 5000 });
  assert.equal(await page.isHidden('#attente'), true);

  // Four 5xx in a row (500, 502, 503 then 500): retried with backoff, then a clear message.
  await mock.faults([{ status: 500 }, { status: 502 }, { status: 503 }, { status: 500 }]);
  await page.fill('#question', 'mortier rapide');
  await page.waitForSelector('#colonne-sens .erreur-api', { timeout: 20000 });
  assert.match(await page.textContent('#colonne-sens .erreur-api'), /en panne \(HTTP 500\)/);

  for (const [fault, text] of [[{ html: true }, /pas celle attendue/], [{ malformed: true }, /pas celle attendue/]]) {
    await mock.faults([fault]);
    await page.fill('#question', `gravier ${text.source.length} ${JSON.stringify(fault).length}`);
    await page.waitForSelector('#colonne-sens .erreur-api');
    assert.match(await page.textContent('#colonne-sens .erreur-api'), text);
  }
  // What was embedded before the faults is still there: no new call for an earlier question.
  const calls = (await mock.log()).filter((r) => r.method === 'POST').length;
  await page.fill('#question', 'colle pour faïence');
  await page.waitForSelector('#colonne-sens li.resultat');
  assert.equal((await mock.log()).filter((r) => r.method === 'POST').length, calls);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a newer question cancels the older request; a stale answer never shows', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, shipped.url);
  await enterKey(page);
  await mock.faults([{ hang: true }]);
  await page.fill('#question', 'tuile canal');
  await page.waitForFunction(async () => true);
  await page.waitForTimeout(700);
  await page.fill('#question', 'joint époxy');
  await page.waitForSelector('#colonne-sens li.resultat');
  assert.equal(await page.getAttribute('#colonne-sens li.resultat >> nth=0', 'data-id'), 'AR-0032');
  // The older question's call (hanging at the mock) was cancelled and its task has ended: its
  // answer can no longer arrive.
  await page.waitForSelector('body[data-appels="0"]');
  assert.equal(await page.inputValue('#question'), 'joint époxy');
  assert.equal(await page.getAttribute('#colonne-sens li.resultat >> nth=0', 'data-id'), 'AR-0032');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the key: remembered only when ticked, forgotten by « oublier », never read from the URL', async () => {
  const { page, context, problems } = await openPage(browser, `${shipped.url}?key=${KEY}&api=http://evil.example#key=${KEY}`);
  assert.equal(await page.inputValue('#cle'), '', 'a key in the URL is ignored');
  await enterKey(page);
  assert.equal(await page.evaluate(() => JSON.stringify(localStorage)), '{}');
  await page.check('#retenir');
  assert.equal(await page.evaluate(() => Object.values(localStorage).includes('cle-de-test-123456')), true);
  assert.match(await page.textContent('#cle-etat'), /retenue sur cet appareil/);
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.inputValue('#cle'), KEY);
  await settings(page);
  await page.click('#oublier');
  assert.equal(await page.evaluate(() => JSON.stringify(localStorage)), '{}');
  assert.equal(await page.inputValue('#cle'), '');
  assert.match(await page.textContent('#cle-etat'), /Aucune clé/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('more faults: 403, 429 forever without Retry-After, a CORS refusal, offline: clear French, nothing lost', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, shipped.url, { expectHttpErrors: true });
  await enterKey(page);
  await page.fill('#question', 'joint époxy');
  await page.waitForSelector('#colonne-sens li.resultat');
  const calls = async () => (await mock.log()).filter((r) => r.method === 'POST').length;
  const failWith = async (faults, question, message, attempts) => {
    const before = await calls();
    await mock.faults(faults);
    await page.fill('#question', question);
    await page.waitForSelector('#colonne-sens .erreur-api', { timeout: 20000 });
    assert.match(await page.textContent('#colonne-sens .erreur-api'), message);
    if (attempts !== undefined && faults.every((f) => f.status)) assert.equal(await calls() - before, attempts);
  };
  await failWith([{ status: 403 }], 'tuile canal', /Clé refusée \(HTTP 403\)/, 1);
  // Four 429s: the waits (10, 30, 60 s) are each cut short by « Réessayer maintenant ».
  const skipping = (async () => {
    for (let i = 0; i < 3; i += 1) {
      await page.waitForSelector('#attente:not([hidden])', { timeout: 20000 });
      const before = (await mock.log()).length;
      await page.click('#reessayer');
      while ((await mock.log()).length === before) await new Promise((ok) => setTimeout(ok, 50));
    }
  })();
  await failWith(Array(4).fill({ status: 429 }), 'ardoise naturelle', /Trop de requêtes \(HTTP 429\), même après avoir attendu/, 4);
  await skipping;
  await failWith(Array(4).fill({ nocors: true }), 'gravier concassé', /Pas de réponse de l'API/);
  await context.setOffline(true);
  await page.fill('#question', 'sable de rivière');
  await page.waitForSelector('#colonne-sens .erreur-api', { timeout: 20000 });
  assert.match(await page.textContent('#colonne-sens .erreur-api'), /Pas de réponse de l'API \(hors ligne/);
  await context.setOffline(false);
  // The question answered before the faults is still known: shown again without a call.
  const before = await calls();
  await page.fill('#question', 'joint époxy');
  await page.waitForSelector('#colonne-sens li.resultat');
  assert.equal(await calls(), before);
  assert.deepEqual(problems, []);
  await context.close();
});
