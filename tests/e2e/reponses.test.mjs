// The answer's lessons computed once (`reponses`) against the mock (tests/e2e/mock-mistral.mjs),
// and shown by the page to a learner with no key: the file, its reuse, the parsers' strict paths
// through the mock's faults, and the page's refusal of a file made for other questions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMock } from './mock-mistral.mjs';
import { launch, serveDist, openPage } from './harness.mjs';

const KEY = 'cle-reponses-42';
const ROOT = new URL('../../', import.meta.url).pathname;
const REPONSES = join(ROOT, 'target/release/reponses');
const PORT = 8791;
let mock;
let dir;
let browser;

const run = (args, env = {}) => promisify(execFile)(REPONSES, args,
  { cwd: ROOT, env: { ...process.env, MISTRAL_API_KEY: KEY, MISTRAL_API_BASE: mock.origin, ...env } });
const chats = async () => (await mock.log()).filter((r) => r.path === '/v1/chat/completions');

before(async () => {
  mock = await startMock(PORT);
  dir = await mkdtemp(join(tmpdir(), 'rag-fiches-reponses-'));
});
after(async () => { await browser?.close(); await mock?.close(); });

test('reponses writes the fingerprinted file against the mock, then reuses every answer', async () => {
  await mock.reset();
  const out = join(dir, 'reponses.json');
  await writeFile(join(dir, 'manifeste.json'), '{"vecteurs":null}');
  const { stdout } = await run(['--methodes', 'mots,mots+', '--out', out]);
  const file = JSON.parse(await readFile(out, 'utf8'));
  assert.equal(file.format, 'rag-fiches/reponses');
  assert.equal(file.api, mock.origin);
  assert.deepEqual(file.methods.map((m) => m.method), ['mots', 'mots+']);
  assert.deepEqual(file.reranked.map((r) => r.stage), ['mots', 'mots+']);
  for (const m of file.methods) assert.equal(m.answers.length, 40);
  assert.equal(file.catalogue.length, 40);
  assert.equal(file.catalogue[0].sent.length, 200);
  assert.equal(file.reranked[0].lists[0].read.length, 20);
  assert.match(file.computed, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // The key went only in the Authorization header, with Content-Type; each role was called.
  const log = await chats();
  for (const r of log) {
    assert.equal(r.headers.authorization, `Bearer ${KEY}`);
    assert.equal(r.headers['content-type'], 'application/json');
  }
  const roles = new Set(log.map((r) => r.role));
  assert.deepEqual([...roles].sort(), ['answer', 'judge', 'rerank']);
  // The same top 5 twice costs one call: fewer answer calls than 2 methods × 40 + 40.
  const answers = log.filter((r) => r.role === 'answer').length;
  assert.ok(answers < 120, `${answers} answer calls`);
  assert.match(stdout, /NOT Mistral: http:\/\/127\.0\.0\.1:8791/);
  assert.match(stdout, /tout le catalogue/);
  // The manifest beside it names it.
  assert.equal(JSON.parse(await readFile(join(dir, 'manifeste.json'), 'utf8')).reponses, 'reponses.json');
  // Up to date, and a second run pays nothing.
  await run(['--methodes', 'mots,mots+', '--out', out, '--a-jour']);
  await mock.reset();
  const again = await run(['--methodes', 'mots,mots+', '--out', out]);
  assert.equal((await chats()).length, 0);
  assert.match(again.stderr, /0 calls made/);
  // Stale (exit 1, nothing sent): another judge model; other methods; another origin, whose
  // answers are never reused as this one's.
  await assert.rejects(run(['--methodes', 'mots,mots+', '--out', out, '--a-jour', '--juge', 'mistral-large-latest']),
    (e) => e.code === 1);
  await assert.rejects(run(['--methodes', 'mots', '--out', out, '--a-jour']), (e) => e.code === 1);
  await assert.rejects(run(['--methodes', 'mots,mots+', '--out', out, '--a-jour'], { MISTRAL_API_BASE: 'http://127.0.0.1:8792' }),
    (e) => e.code === 1);
  assert.equal((await chats()).length, 0, '--a-jour sends nothing');
});

test('reponses reads malformed verdicts, omitted and invented fiches strictly, and waits out a 429', async () => {
  await mock.reset();
  const out = join(dir, 'fautes.json');
  // Calls in order for the first question of mots: answer, judge, rerank.
  await mock.faults([{ status: 429 }, {}, { verdict: 'Oui, la fiche le dit' }, { omit: true, invent: true }]);
  const { stderr } = await run(['--methodes', 'mots', '--out', out]);
  assert.match(stderr, /HTTP 429/);
  const file = JSON.parse(await readFile(out, 'utf8'));
  const first = file.methods[0].answers[0];
  assert.equal(first.judge, 'Oui, la fiche le dit');
  const list = file.reranked[0].lists[0];
  assert.match(list.reply, /AR-9999 : 10$/);
  assert.equal(list.reply.split('\n').length, 20, 'one fiche omitted, one invented');
});

test('reponses never sends the key to an origin that is not Mistral\'s or a loopback', async () => {
  await assert.rejects(run(['--out', join(dir, 'x.json')], { MISTRAL_API_BASE: 'https://api.mistral.ai.example.com' }),
    (e) => e.code === 2 && /MISTRAL_API_BASE must be https:\/\/api\.mistral\.ai/.test(e.stderr) && !e.stderr.includes(KEY));
});

/** The test build served with `reponses` (its bytes) named in the manifest. */
async function serveWithAnswers(reponses) {
  const manifest = JSON.parse(await readFile(join(ROOT, 'dist-test/data/manifeste.json'), 'utf8'));
  return serveDist({
    dir: 'dist-test',
    overrides: {
      'data/manifeste.json': JSON.stringify({ ...manifest, reponses: 'reponses.json' }),
      'data/reponses.json': reponses,
    },
  });
}

test('a learner with no key sees the shipped answer lessons, marked as the mock\'s, and « reclassé » measured like a method', async () => {
  await mock.reset();
  const out = join(dir, 'page.json');
  await run(['--methodes', 'mots,mots+', '--out', out]);
  // One answer judged NON (the mock's judge finds none to fault): listed to re-read by hand.
  const file = JSON.parse(await readFile(out, 'utf8'));
  file.methods[1].answers[3].judge = 'NON';
  const server = await serveWithAnswers(Buffer.from(JSON.stringify(file)));
  browser ??= await launch();
  const { page, context, problems } = await openPage(browser, server.url);
  try {
    await mock.reset();
    await page.click('#onglet-mesurer');
    await page.waitForSelector('#reponses-livrees table.reponses-livrees');
    const text = await page.textContent('#reponses-livrees');
    assert.match(text, /Calculées le \d{1,2}(er)? \p{L}+ \d{4} avec mistral-small-latest \(réponses\)/u);
    assert.match(text, /API simulée \(http:\/\/127\.0\.0\.1:8791\), pas par un modèle de Mistral/);
    const rows = await page.$$eval('table.reponses-livrees tbody tr', (trs) => trs.map((tr) => tr.dataset.methode));
    assert.deepEqual(rows, ['mots', 'mots+', 'tout le catalogue']);
    // Faithfulness from the file's verdicts.
    const oui = file.methods[1].answers.filter((a) => a.judge === 'OUI').length;
    assert.match(await page.textContent('table.reponses-livrees tr[data-methode="mots+"] td.fidelite'),
      new RegExp(`\\(${oui} OUI sur 40\\)`));
    assert.match(await page.textContent('details.a-relire[data-methode="mots+"] summary'),
      /mots\+\u00a0: 1 réponse\(s\) jugée\(s\) NON, à relire à la main/);
    assert.equal(await page.locator('details.a-relire').count(), 1);
    assert.match(await page.textContent('details.a-relire li'), new RegExp(file.methods[1].answers[3].sent[0]));
    // The reranking: its ceiling, and each reranked list as a method in the tables and the grid.
    assert.match(await page.textContent('table.reclassement tr[data-methode="mots+"] td.plafond'), /\(\d+\/35\)/);
    await page.waitForSelector('table.comparaison tr[data-methode="mots+ reclassé"]', { state: 'attached' });
    assert.match(await page.textContent('table.grille thead'), /mots\+ reclassé/);
    // Without a key, « Reclasser » says what it needs, and offers no button that can only fail.
    assert.match(await page.textContent('#reclasser-actions'), /^Entrez votre clé Mistral pour reclasser/);
    assert.equal(await page.locator('#reclasser-lancer').count(), 0);
    // Nothing was sent: no key, no call.
    assert.deepEqual(await mock.log(), []);
    assert.deepEqual(problems, []);
    if (process.env.CAPTURES) {
      for (const width of [1366, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.locator('#reponses-livrees').screenshot({ path: `${process.env.CAPTURES}/reponses-livrees-${width}.png` });
      }
    }
  } finally {
    await context.close();
    await server.close();
  }
});

test('the page refuses a shipped answers file made for other questions, and shows nothing of it', async () => {
  const file = JSON.parse(await readFile(join(dir, 'page.json'), 'utf8'));
  file.questions = '0'.repeat(64);
  const server = await serveWithAnswers(Buffer.from(JSON.stringify(file)));
  browser ??= await launch();
  const { page, context } = await openPage(browser, server.url);
  try {
    await page.click('#onglet-mesurer');
    await page.waitForSelector('#reponses-livrees [role="alert"]');
    assert.match(await page.textContent('#reponses-livrees'),
      /Les réponses calculées d'avance ne sont pas montrées\u00a0: il a été calculé pour d'autres questions/);
    assert.equal(await page.locator('#reponses-livrees table').count(), 0);
    await page.waitForSelector('table.comparaison tr[data-methode="mots"]', { state: 'attached' });
    assert.equal(await page.locator('[data-methode$="reclassé"]').count(), 0);
  } finally {
    await context.close();
    await server.close();
  }
});
