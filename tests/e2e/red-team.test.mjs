// The second red team's breaks that only a browser shows (issue 45), each named after its number;
// the others are decided by the page's model and tested natively (tests/page.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, suite } from './harness.mjs';

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
