// The local model's download and cache, as the second red team broke them (issue 45): a changed
// model is fetched again (B1), a foreign body is never kept (B4), a link does not download it
// without a gesture (B8). One server whose files are swapped between loads, so that the browser's
// storage (one origin) carries over as a returning learner's would.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { launch, serveDist, openPage, openPageIn, launchWithProfile, LOCAL_MODEL, localModelPresent } from './harness.mjs';

const present = localModelPresent("the model cache's tests");
const QUESTION = 'Une plaque de plâtre pour une pièce humide';
let browser;
let server;
const overrides = {};
let model;
let manifest;
/** The head before xz (target/usem/tete/, scripts/modele.sh). */
let rawHead;

before(async () => {
  browser = await launch();
  server = await serveDist({ overrides });
  if (!present) return;
  model = await readFile(new URL(`../../dist/${LOCAL_MODEL}`, import.meta.url));
  // The head as modele --tete wrote it, before xz (scripts/modele.sh): the worker takes it
  // uncompressed too, so a test can change its bytes.
  rawHead = await readFile(new URL('../../target/usem/tete/tete.safetensors', import.meta.url));
  manifest = JSON.parse(await readFile(new URL('../../dist/data/manifeste.json', import.meta.url), 'utf8'));
});
after(async () => {
  await browser?.close();
  await server?.close();
});

/** The model's head with the last dense layer's weights negated (as the red team simulated a
 *  deploy that changes the model): a valid file, another content, other vectors. The layer is
 *  coded (one byte per weight, `d3.valeurs` its f32 values): its values are negated. */
function changedModel() {
  const bytes = Buffer.from(rawHead);
  const headerLen = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLen).toString('utf8'));
  const [start, end] = header['d3.valeurs'].data_offsets;
  const base = 8 + headerLen;
  for (let i = base + start + 3; i < base + end; i += 4) bytes[i] ^= 0x80;
  return bytes;
}

const sha = (bytes) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** Counts the requests for the model made by `page`. */
function countModel(page) {
  const seen = [];
  page.on('request', (r) => { if (r.url().endsWith(LOCAL_MODEL)) seen.push(r.url()); });
  return seen;
}

/** Loads (or reloads) the page, shows sens local and types the question. */
async function askLocally(page, reload = false) {
  if (reload) await page.reload();
  else await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.check('#voir-sens-local');
  await page.fill('#question', QUESTION);
}

async function firstLocalResult(page) {
  const first = page.locator('#colonne-sens-local li.resultat').first();
  await first.waitFor({ timeout: 90000 });
  return first.getAttribute('data-id');
}

test('b1: a model changed by a deploy is fetched again, never the cached one used with it', { skip: !present }, async () => {
  for (const k of Object.keys(overrides)) delete overrides[k];
  const { page, context, problems } = await openPage(browser, null);
  const models = countModel(page);
  await askLocally(page);
  const before = await firstLocalResult(page);
  assert.equal(models.length, 1);
  // A deploy changes the model (same path, same size, same model name) and names its hash.
  const changed = changedModel();
  assert.equal(changed.length, rawHead.length);
  overrides[LOCAL_MODEL] = changed;
  overrides['data/manifeste.json'] = JSON.stringify({ ...manifest, modele_local_tete: sha(changed) });
  await askLocally(page, true);
  const after = await firstLocalResult(page);
  assert.equal(models.length, 2, 'the changed model is fetched, not read from the cache');
  assert.notEqual(after, before, 'the changed model ranks otherwise: it is the one in use');
  assert.deepEqual(problems, []);
  await context.close();
});

test('b4: a body that is not the model is refused and never kept: the next load fetches it again', { skip: !present }, async () => {
  for (const k of Object.keys(overrides)) delete overrides[k];
  // A Git LFS pointer served with status 200 where the model should be.
  overrides[LOCAL_MODEL] = 'version https://git-lfs.github.com/spec/v1\noid sha256:4b3a3e7c\nsize 81098920\n';
  const { page, context, problems } = await openPage(browser, null);
  const models = countModel(page);
  await askLocally(page);
  // Said on the line of the methods that cannot run, with the bytes received.
  const said = page.locator('.local-indisponible', { hasText: /n'est pas celui de cette page/ });
  await said.waitFor({ timeout: 30000 });
  assert.match(await said.textContent(), /le fichier reçu \(77 octets/);
  delete overrides[LOCAL_MODEL];
  await askLocally(page, true);
  await firstLocalResult(page);
  assert.equal(models.length, 2, 'the refused body was not kept: the model is fetched again');
  assert.deepEqual(problems, []);
  await context.close();
});

test('b8: a link with sens local downloads nothing before a click; the click fetches once', { skip: !present }, async () => {
  for (const k of Object.keys(overrides)) delete overrides[k];
  const { page, context, problems } = await openPage(browser, null);
  const models = countModel(page);
  const link = `${server.url}#q=${encodeURIComponent('Un enduit pour reboucher une fissure')}&m=mots%2Cmots%2B%2Csens%20local`;
  await page.goto(link);
  await page.waitForSelector('body[data-ready="true"]');
  const ask = page.locator('#colonne-sens-local button[data-charger-modele]');
  await ask.waitFor();
  assert.equal(await ask.textContent(), 'Charger le modèle local (3\u00a0Mo, une fois)');
  assert.equal(models.length, 0, 'a link downloads no model by itself');
  // A reload of the link does not either.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await ask.waitFor();
  assert.equal(models.length, 0);
  await ask.click();
  await firstLocalResult(page);
  assert.equal(models.length, 1);
  assert.deepEqual(problems, []);
  await context.close();
});

test('b7: a server error is said as such, and the next question fetches the model again', { skip: !present }, async () => {
  for (const k of Object.keys(overrides)) delete overrides[k];
  const { page, context, problems } = await openPage(browser, null, { expectHttpErrors: true });
  let refused = 0;
  const busy = (route) => {
    refused += 1;
    return route.fulfill({ status: 503, contentType: 'text/plain', body: 'busy' });
  };
  await page.route(`**/${LOCAL_MODEL}`, busy);
  await askLocally(page);
  const said = page.locator('.local-indisponible', { hasText: /le serveur a répondu 503/ });
  await said.waitFor({ timeout: 30000 });
  assert.match(await said.textContent(), /Tapez une autre question pour réessayer/);
  assert.equal(refused, 1, 'one request, answered 503, and no retry by itself');
  await page.unroute(`**/${LOCAL_MODEL}`, busy);
  // Nothing was kept of the failed download: the results of the next question prove the model
  // was fetched again.
  await page.fill('#question', 'Un isolant qui ne brûle pas');
  await firstLocalResult(page);
  assert.equal(refused, 1);
  assert.deepEqual(problems.filter((p) => !/503/.test(p)), []);
  await context.close();
});

test('b9: a model the browser would not keep is used and said not kept', { skip: !present }, async () => {
  for (const k of Object.keys(overrides)) delete overrides[k];
  // A profile on disk whose origin is allowed 1 MB, set before the page opens: the model's 3 MB
  // head cannot be stored.
  const { page, context, problems } = await openPageIn(await launchWithProfile(), null);
  // A profile on disk is a browser of its own: closed whatever the test's outcome.
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(server.url).origin, quotaSize: 1e6 });
    await askLocally(page);
    await firstLocalResult(page);
    const note = page.locator('#colonne-sens-local p.note', { hasText: /sans être gardé dans ce navigateur/ });
    await note.waitFor({ timeout: 30000 });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

/** Waits until `cond()` holds (polled every 50 ms), or fails after `ms`. */
async function until(cond, ms, what) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

/** Opens `slow`'s page, shows sens local and types the question: the model's download starts. */
async function askSlowly(page, slow) {
  await page.goto(slow.url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.check('#voir-sens-local');
  await page.fill('#question', QUESTION);
}

test('b7: unticking the local methods, or « Annuler le téléchargement », aborts the download: the server sees it closed', { skip: !present }, async () => {
  // 64 kB every 100 ms: the 81 MB model would take two minutes.
  const slow = await serveDist({ slow: { [LOCAL_MODEL]: { body: model } } });
  const { page, context, problems } = await openPage(browser, null);
  try {
    await askSlowly(page, slow);
    await until(() => slow.served[0]?.sent > 300_000, 20000, 'the download under way');
    await page.uncheck('#voir-sens-local');
    await until(() => slow.served[0].closedEarly, 3000, 'the request aborted once unticked');
    assert.ok(slow.served[0].sent < model.length);
    await new Promise((ok) => setTimeout(ok, 500));
    assert.equal(slow.served.length, 1, 'nothing fetched again by itself');
    // Ticked again (a question not among the exercise's, whose local vectors ship): fetched
    // again; « Annuler » stops it and says so.
    await page.check('#voir-sens-local');
    await page.fill('#question', 'Une colle pour carrelage extérieur');
    await until(() => slow.served[1]?.sent > 300_000, 20000, 'the second download under way');
    await page.locator('#colonne-sens-local button[data-annuler-modele]').click();
    await until(() => slow.served[1].closedEarly, 3000, 'the request aborted by « Annuler »');
    await page.locator('.local-indisponible', { hasText: /Téléchargement du modèle local annulé/ }).waitFor();
    await new Promise((ok) => setTimeout(ok, 500));
    assert.equal(slow.served.length, 2);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await slow.close();
  }
});

test('b7: a download that stops receiving is abandoned after 30 s, and said', { skip: !present }, async () => {
  const slow = await serveDist({ slow: { [LOCAL_MODEL]: { body: model, stallAfter: 256 * 1024 } } });
  const { page, context, problems } = await openPage(browser, null);
  try {
    await askSlowly(page, slow);
    const said = page.locator('.local-indisponible', { hasText: /rien reçu depuis 30 s/ });
    await said.waitFor({ timeout: 45000 });
    assert.match(await said.textContent(), /Tapez une autre question pour réessayer/);
    await until(() => slow.served[0].closedEarly, 3000, 'the stalled request given up');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await slow.close();
  }
});
