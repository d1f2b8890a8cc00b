// The second red team's breaks that only a browser shows (issue 45), each named after its number;
// the others are decided by the page's model and tested natively (tests/page.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, openPageIn, launchWithProfile, suite, npy } from './harness.mjs';
import { fakeEmbed } from './mock-mistral.mjs';

let browser;
let server;
suite((s) => ({ browser, server } = s));

test('b11: a « vos données » link opened where those files are absent says so under the header', async () => {
  const { page, context, problems } = await openPage(browser, `${server.url}#jeu=vos-donnees`);
  const note = page.locator('#note-lien');
  await note.waitFor();
  assert.match(await note.textContent(), /chiffres montrés ici sont ceux du catalogue de l'exercice/);
  // Visible without opening « Réglages ».
  assert.equal(await page.locator('#reglages').getAttribute('open'), null);
  assert.deepEqual(problems, []);
  await context.close();
});

test('b13: a vectors file a closed tab left in the origin-private file system is removed at the next start', async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  // What a tab closed mid-work leaves: a file no worker holds.
  await page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('rag-fiches-vecteurs', { create: true });
    const file = await dir.getFileHandle('0123456789abcdef-7.bin', { create: true });
    const w = await file.createWritable();
    await w.write(new Uint8Array(1 << 20));
    await w.close();
  });
  const left = () => page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('rag-fiches-vecteurs', { create: true });
    const names = [];
    for await (const name of dir.keys()) names.push(name);
    return names;
  });
  assert.deepEqual(await left(), ['0123456789abcdef-7.bin']);
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(async () => {
    const root = await navigator.storage.getDirectory();
    const dir = await root.getDirectoryHandle('rag-fiches-vecteurs', { create: true });
    for await (const _ of dir.keys()) return false;
    return true;
  }, null, { timeout: 10000, polling: 100 });
  assert.deepEqual(await left(), []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('b5: under storage pressure the learner\'s fiches, questions and vectors load, kept in memory', async () => {
  // A profile on disk (an incognito context keeps its files in memory), its origin allowed 100 kB
  // before the page opens: the 300 fiches' exact values (600 kB) do not fit in its file system.
  const { page, context, problems } = await openPageIn(await launchWithProfile(), null);
  // A profile on disk is a browser of its own: closed whatever the test's outcome.
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(server.url).origin, quotaSize: 100000 });
    await page.goto(server.url);
    await page.waitForSelector('body[data-ready="true"]');
    const fiches = Array.from({ length: 300 }, (_, i) => ({
      id: `Q-${String(i).padStart(3, '0')}`,
      famille: 'Quincaillerie',
      nom: `Vis ${i}`,
      texte: `Vis à bois numéro ${i}, boîte de ${i + 10}.`,
    }));
    const jsonl = fiches.map((f) => JSON.stringify(f)).join('\n') + '\n';
    const csv = 'type;question;fiche_attendue\nexacte;Vis 7;Q-007\n';
    const file = (name, content) => ({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(content) });
    await page.setInputFiles('#fichiers', [
      file('f.jsonl', jsonl),
      file('q.csv', csv),
      file('v.npy', npy(fiches.map((f) => fakeEmbed(f.texte)))),
    ]);
    await page.waitForFunction(() => /^300 fiches, 1 question/.test(document.querySelector('#resume').textContent));
    assert.match(await page.textContent('#vecteurs-etat'), /300 × 1024 \(mistral-embed\), chargés depuis v\.npy/);
    assert.equal(await page.textContent('#donnees-erreurs'), '');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('b12: before the page\'s module arrives, the controls it serves are marked inactive; then they work', async () => {
  const { page, context, problems } = await openPage(browser, null);
  let release;
  const gate = new Promise((ok) => { release = ok; });
  await page.route('**/rag-fiches_bg.wasm', async (route) => { await gate; await route.continue(); });
  await page.goto(`${server.url}#q=${encodeURIComponent('joint époxy')}`);
  // The first module drew the link's keyword columns; the page's module is held back.
  await page.waitForSelector('#colonne-mots li.resultat');
  const inert = (selector) => page.evaluate((s) => document.querySelector(s).closest('[inert]') !== null, selector);
  for (const control of ['#exemples', '#onglet-mesurer', '#methodes', '#reglages', '#copier-lien']) {
    assert.equal(await inert(control), true, `${control} is not marked inactive`);
  }
  // What the learner types is kept, and the columns say they are not this question's yet.
  await page.fill('#question', 'truelle');
  assert.equal(await page.getAttribute('#resultats', 'aria-busy'), 'true');
  release();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.evaluate(() => document.querySelector('[inert]')), null);
  assert.equal(await page.getAttribute('#resultats', 'aria-busy'), null);
  await page.click('#onglet-mesurer');
  await page.waitForSelector('#vue-mesurer:not([hidden])');
  assert.deepEqual(problems, []);
  await context.close();
});
