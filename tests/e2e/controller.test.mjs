// The page's controller cannot go stale, race or die: each test pins a defect of the old
// controller (issue 11) — a panel that did not follow the key, a panic when the catalogue changed
// under a running evaluation, vectors of the old catalogue accepted for the new one, a listener
// added on every render.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { openPage, suite, enterKey, serveWithVectors } from './harness.mjs';

const KEY = 'cle-controleur-42';
const ROOT = new URL('../../', import.meta.url);
let mock;
let browser;
let server;
let shipped;
suite((s) => ({ mock, browser, server } = s), { dir: 'dist-test', mock: true });

before(async () => {
  ({ server: shipped } = await serveWithVectors(KEY));
});

after(() => shipped?.close());

const file = (name, content) => ({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(content) });

/** Three fiches and two questions: a catalogue much smaller than the exercise's. */
function small() {
  const fiches = [
    { id: 'S-1', famille: 'Outils', nom: 'Marteau de coffreur', texte: 'Marteau de coffreur, manche en bois.' },
    { id: 'S-2', famille: 'Outils', nom: 'Niveau à bulle', texte: 'Niveau à bulle de 60 cm, aluminium.' },
    { id: 'S-3', famille: 'Outils', nom: 'Truelle', texte: 'Truelle de maçon, acier trempé.' },
  ];
  return [
    file('petit.jsonl', fiches.map((f) => JSON.stringify(f)).join('\n') + '\n'),
    file('petit.csv', 'type;question;fiche_attendue\nexacte;Truelle de maçon;S-3\nabsente;Une perceuse ?;\n'),
  ];
}

/** The exercise's fiches with the same ids and other texts. */
async function sameIdsOtherTexts() {
  const jsonl = await readFile(new URL('data/fiches.jsonl', ROOT), 'utf8');
  const other = jsonl.trim().split('\n').map((l) => {
    const f = JSON.parse(l);
    return JSON.stringify({ ...f, texte: `${f.texte} Texte revu pour ce test.` });
  }).join('\n') + '\n';
  const csv = await readFile(new URL('data/questions.csv', ROOT));
  return [file('revues.jsonl', other), file('questions.csv', csv)];
}

test('typing a key makes « Mesurer les réponses » offer to run at once', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, server.url);
  await page.click('#onglet-mesurer');
  assert.match(await page.textContent('#eval-actions'), /Entrez votre clé Mistral/);
  await enterKey(page, KEY);
  // No other control touched: the panel follows the key by itself.
  assert.equal(await page.isVisible('#eval-lancer'), true);
  await page.click('#oublier');
  assert.match(await page.textContent('#eval-actions'), /Entrez votre clé Mistral/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a smaller catalogue loaded during « Mesurer les réponses » stops the run in French; the page still works', async () => {
  await mock.reset();
  await mock.faults(Array(6).fill({ delayMs: 700 }));
  const { page, context, problems } = await openPage(browser, server.url);
  await enterKey(page, KEY);
  await page.click('#onglet-mesurer');
  // Choosing the method first (as a learner may) also let the old controller show the button.
  await page.selectOption('#eval-methode', 'mots+');
  await page.click('#eval-lancer');
  await page.click('#eval-confirmer');
  await page.waitForFunction(() => /^2 réponses sur 40/.test(document.querySelector('#eval-etat').textContent));
  await page.setInputFiles('#fichiers', small());
  await page.waitForFunction(() => /^3 fiches, 2 questions/.test(document.querySelector('#resume').textContent));
  // The run's task has ended: what it says and what it sent are final.
  await page.waitForSelector('body[data-appels="0"]');
  assert.deepEqual(problems, [], 'no panic, no error');
  assert.match(await page.textContent('#eval-etat'), /Mesure arrêtée\s: un autre catalogue a été chargé/);
  const calls = (await mock.log()).filter((r) => r.path === '/v1/chat/completions' && r.method === 'POST').length;
  // Two questions answered and judged (4 calls), at most one more in flight when it stopped.
  assert.ok(calls <= 5, `the run stopped (${calls} chat calls)`);
  // The module is alive: a search on the new catalogue answers.
  await page.click('#onglet-chercher');
  await page.fill('#question', 'truelle');
  await page.waitForSelector('#colonne-mots li.resultat[data-id="S-3"]');
  assert.deepEqual(problems, []);
  await context.close();
});

test('switching catalogue during « Calculer les vecteurs » accepts and caches nothing of the old one', async () => {
  await mock.reset();
  await mock.faults([{ delayMs: 1500 }]);
  const { page, context, problems } = await openPage(browser, server.url);
  await enterKey(page, KEY);
  await page.click('#calculer');
  await page.waitForSelector('#calcul:not([hidden])');
  await page.setInputFiles('#fichiers', await sameIdsOtherTexts());
  await page.waitForFunction(() => /vos données \(revues\.jsonl/.test(document.querySelector('#resume').textContent));
  // The computation's task has ended (cancelled by the switch): nothing more can be cached.
  await page.waitForSelector('body[data-appels="0"]');
  assert.match(await page.textContent('#vecteurs-etat'), /Aucun vecteur pour ces fiches/);
  const stored = await page.evaluate(() => new Promise((ok, ko) => {
    const open = indexedDB.open('rag-fiches');
    open.onsuccess = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains('vecteurs-fiches')) { ok(0); return; }
      const count = db.transaction('vecteurs-fiches').objectStore('vecteurs-fiches').count();
      count.onsuccess = () => ok(count.result);
      count.onerror = () => ko(count.error);
    };
    open.onerror = () => ko(open.error);
  }));
  assert.equal(stored, 0, 'no vectors file cached');
  const embeds = (await mock.log()).filter((r) => r.path === '/v1/embeddings' && r.method === 'POST').length;
  // The page first looks each text up in its cache (a resumed run pays nothing twice), so the
  // switch may come before the first batch: at most the batch in flight was sent, none after.
  assert.ok(embeds <= 1, `${embeds} batches sent, none after the switch`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('re-rendering « Mesurer » 50 times adds no listener', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, null);
  await page.addInitScript(() => {
    window.__listeners = 0;
    const add = EventTarget.prototype.addEventListener;
    EventTarget.prototype.addEventListener = function (...args) {
      window.__listeners += 1;
      return add.apply(this, args);
    };
  });
  await page.goto(shipped.url);
  await page.waitForSelector('body[data-ready="true"]');
  await enterKey(page, KEY);
  await page.click('#onglet-mesurer');
  await page.waitForSelector('#mesurer-sens');
  const before = await page.evaluate(() => window.__listeners);
  for (let i = 0; i < 50; i++) {
    await page.click(`#mesures button[data-tri="${i % 2 ? 'mots' : 'mots+'}"]`);
  }
  const order = await page.locator('#partie-grille tbody tr').first().getAttribute('data-question');
  assert.ok(order !== null, 'the grid is there');
  assert.equal(await page.evaluate(() => window.__listeners), before);
  assert.deepEqual(problems, []);
  await context.close();
});

const posts = async (path) => (await mock.log()).filter((r) => r.path === path && r.method === 'POST').length;

test('a link never spends the key: its question is embedded only on a click', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, shipped.url);
  await enterKey(page, KEY);
  await page.check('#retenir');
  // The same browser (the key remembered) opens a link that asks for sens.
  const other = await context.newPage();
  await other.goto(`${shipped.url}#q=joint%20%C3%A9poxy&m=mots,sens`);
  await other.waitForSelector('body[data-ready="true"]');
  await other.waitForSelector('#colonne-sens button[data-plonger]');
  // A page that rewrites the fragment again and again does not spend it either.
  for (const q of ['colle', 'mortier', 'enduit']) {
    await other.evaluate((x) => { location.hash = `#q=${x}&m=sens`; }, q);
    await other.waitForFunction((x) => document.querySelector('#question').value === x, q);
  }
  // A paid call would have started with the message that changed the question (its request
  // follows a pause in typing): none is running.
  assert.equal(await other.getAttribute('body', 'data-appels'), '0', 'no paid task without a click');
  assert.equal(await posts('/v1/embeddings'), 0, 'no paid request without a click');
  await other.click('#colonne-sens button[data-plonger]');
  await other.waitForSelector('#colonne-sens li.resultat');
  assert.equal(await posts('/v1/embeddings'), 1);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a double click on « Mesurer les réponses » does not confirm the run', async () => {
  await mock.reset();
  const { page, context, problems } = await openPage(browser, server.url);
  await enterKey(page, KEY);
  await page.click('#onglet-mesurer');
  await page.dblclick('#eval-lancer');
  // The run would have started with the second click's message: no paid task is running.
  assert.equal(await page.getAttribute('body', 'data-appels'), '0');
  assert.equal(await posts('/v1/chat/completions'), 0, 'nothing paid');
  assert.equal(await page.isVisible('#eval-confirmer'), true, 'the confirmation still waits');
  assert.deepEqual(problems, []);
  await context.close();
});

test('« Mesurer » is built in parts, one per turn: changes made while parts are pending end in the same view as the same changes made one at a time', async () => {
  // Each step a click; TURN lets two turns of the event loop pass: the page's next part is built
  // on the turn after the click's own (its timer is set after ours).
  const steps = ['#onglet-mesurer', 'TURN', '#mesures button[data-tri="mots"]', '#onglet-chercher',
    '#onglet-mesurer', 'TURN', '#mesures button[data-tri="mots+"]', 'TURN', '#mesures button[data-tri="mots+"]'];
  const view = async (fast) => {
    const { page, context, problems } = await openPage(browser, server.url);
    if (fast) {
      await page.evaluate(async (list) => {
        for (const s of list) {
          if (s === 'TURN') {
            for (let i = 0; i < 2; i += 1) await new Promise((ok) => setTimeout(ok, 0));
          }
          else document.querySelector(s).click();
        }
      }, steps);
    } else {
      for (const s of steps.filter((x) => x !== 'TURN')) {
        await page.click(s);
        await page.waitForSelector('#partie-exports', { state: 'attached' });
      }
    }
    await page.waitForSelector('#partie-exports');
    await page.waitForTimeout(300);
    const html = await page.evaluate(() => document.querySelector('#mesures').innerHTML);
    assert.deepEqual(problems, []);
    await context.close();
    return html;
  };
  const fast = await view(true);
  const slow = await view(false);
  for (const id of ['partie-tableaux', 'partie-grille', 'partie-seuils', 'partie-exports']) {
    assert.equal(fast.split(`id="${id}"`).length, 2, `one ${id}`);
  }
  assert.equal(fast, slow);
});
