// « Mesurer » as a lab: the comparison, the question grid, thresholds, exports read back, and
// shareable links that restore a state exactly and carry nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { openPage, suite, enterKey, pickExample } from './harness.mjs';

let browser;
let server;
suite((s) => ({ browser, server } = s));

const gridText = (page) => page.locator('table.grille').textContent();

/// `mesurer --all --json` on the exercise, as the page measures it without a key.
async function mesurerAll() {
  const { stdout } = await promisify(execFile)(new URL('../../target/release/mesurer', import.meta.url).pathname,
    ['--all', '--json', '--vectors', 'none'], { cwd: new URL('../../', import.meta.url).pathname, maxBuffer: 64 << 20 });
  return JSON.parse(stdout);
}

/// Equal, numbers within 1e-12 (the last bit of a logarithm may differ between wasm and native).
function assertClose(a, b, path = '') {
  if (typeof a === 'number' && typeof b === 'number') {
    assert.ok(Math.abs(a - b) <= 1e-12, `${path}: ${a} against ${b}`);
  } else if (a && b && typeof a === 'object') {
    assert.deepEqual(Object.keys(a), Object.keys(b), path);
    for (const k of Object.keys(a)) assertClose(a[k], b[k], `${path}.${k}`);
  } else {
    assert.equal(a, b, path);
  }
}

/// A number of the terminal as the page writes it: `digits` decimals, a comma, a true minus.
const fr = (x, digits = 3) => x.toFixed(digits).replace('.', ',').replace('-', '\u2212');
const signed = (x) => (x < 0 ? '' : '+') + fr(x);
const pFr = (p) => (p < 0.001 ? '< 0,001' : fr(p));

test('every pair of methods: the page shows the terminal\'s gaps, tests and Holm correction, and says which lead survives', async () => {
  const terminal = await mesurerAll();
  const { page, context, problems } = await openPage(browser, server.url + '#vue=mesurer');
  await page.waitForSelector('table.paires[data-type="courante"] tr[data-paire]');
  // The table of every pair: MRR@10's gap, the t-test and its Holm correction over the 6 pairs.
  for (const p of terminal.pairs) {
    const row = page.locator(`table.paires[data-type="${p.type}"] tr[data-paire="${p.a}|${p.b}"]`);
    const g = p.gaps[0];
    assert.equal(g.measure, 'MRR@10');
    assert.deepEqual(await row.locator('td').allTextContents(),
      [signed(g.delta), pFr(g.t_p), pFr(g.t_p_holm), g.t_p_holm < 0.05 ? 'sûr' : 'incertain']);
  }
  // mots+ against mots: the bootstrap interval leaves out 0, the t-test says 0.023, but corrected
  // for 6 pairs it is 0.140 — and the page does not call mots+ the best.
  const plus = terminal.pairs.find((p) => p.a === 'mots' && p.b === 'mots+' && p.type === 'courante').gaps[0];
  assert.ok(plus.ci[1] < 0 && plus.t_p < 0.05 && plus.t_p_holm > 0.05, JSON.stringify(plus));
  assert.match(await page.textContent('p.meilleure-methode[data-type="courante"]'),
    /^Questions courantes\s: mots\+ a le meilleur MRR@10\u202f; mais après correction de Holm sur les 6 paires de méthodes \(t apparié\), rien ne la distingue de mots, sens local et hybride local \(p corrigé ≥ 0,05\)\s: on ne peut pas la dire meilleure qu'elles\.$/);
  // The pair compared, on every measure: each figure the terminal's.
  await page.selectOption('#comparer-a', 'mots');
  await page.selectOption('#comparer-b', 'mots+');
  for (const p of terminal.pairs.filter((x) => x.a === 'mots' && x.b === 'mots+')) {
    const table = page.locator(`table.ecarts[data-type="${p.type}"]`);
    await table.waitFor();
    assert.match(await table.locator('caption').textContent(), / − /);
    // One row per figure, one column per measure (MRR@10, hit@1, hit@5).
    assert.deepEqual(await table.locator('thead th').allTextContents(), ['Chiffre', ...p.gaps.map((g) => g.measure)]);
    const rows = {
      ecart: (g) => signed(g.delta),
      intervalle: (g) => `[${signed(g.ci[0])}\u202f; ${signed(g.ci[1])}]`,
      'p-t': (g) => pFr(g.t_p),
      'p-holm': (g) => pFr(g.t_p_holm),
      'p-permutation': (g) => pFr(g.randomisation_p),
      'taille-effet': (g) => fr(g.effect, 2),
      decelable: (g) => (g.detectable === null ? '—' : fr(g.detectable)),
    };
    for (const [row, figure] of Object.entries(rows)) {
      assert.deepEqual(await table.locator(`tr[data-chiffre="${row}"] td`).allTextContents(), p.gaps.map(figure), `${p.type} ${row}`);
    }
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('« Mesurer » compares every method: tables, bars, grid, paired test, thresholds', async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  await page.click('#onglet-mesurer');
  const courante = page.locator('table.comparaison[data-type="courante"]');
  assert.equal(await courante.locator('tr[data-methode="mots"] .hit1').textContent(), '8/20');
  assert.equal(await courante.locator('tr[data-methode="mots+"] .hit5').textContent(), '19/20');
  // Ties, measured: mots+ puts AR-0187 first only by the tie rule (AR-0186 has the same score);
  // pessimistically it is second, and the table says both.
  assert.equal(await courante.locator('tr[data-methode="mots+"] .hit1').textContent(), '11/20 (10/20)');
  // At the product level (any variant of the expected product): 19 of 20 for mots+, 14 for mots.
  assert.equal(await courante.locator('tr[data-methode="mots+"] .produit').textContent(), '19/20');
  assert.equal(await courante.locator('tr[data-methode="mots"] .produit').textContent(), '14/20');
  assert.match(await page.textContent('#note-produit'), /autre variante du même produit/);
  assert.match(await page.textContent('#note-pessimiste'), /chiffre pessimiste/);
  const allee = page.locator('table.grille tr', { hasText: 'Allée où passent les voitures' });
  const tied = allee.locator('td.rang-grille').nth(1);
  assert.equal(await tied.textContent(), '1–2');
  assert.match(await tied.getAttribute('title'), /^mots\+\s: bonne fiche au rang 1, ex æquo avec d'autres fiches de même score \(rangs 1 à 2\)$/);
  assert.equal(await allee.locator('td.rang-grille').first().textContent(), '—', 'mots misses it');
  assert.equal(await page.locator('svg.barres rect').count(), 16, '2 types × 4 methods (mots, mots+, and the local encoder\'s two, shipped) × 2 bars');
  // The grid: 35 answerable questions × 2 methods, ranks readable without colour.
  assert.equal(await page.locator('table.grille tbody tr').count(), 35);
  const row = page.locator('table.grille tr', { hasText: 'Un isolant qui ne brûle pas' });
  assert.equal(await row.locator('td.rang-grille').first().textContent(), '—');
  // Sorting by mots puts its rank-1 questions first and its misses last.
  await page.click('table.grille thead button[data-tri="mots"]');
  // The grid is rebuilt in parts, one per turn of the event loop: read it once sorted.
  await page.waitForFunction(() => document.querySelector('table.grille tbody tr td.rang-grille:nth-of-type(2)')?.textContent === '1');
  const ranks = await page.locator('table.grille tbody tr td.rang-grille:nth-of-type(2)').allTextContents();
  assert.equal(ranks[0], '1');
  assert.equal(ranks[ranks.length - 1], '—');
  // The paired comparison speaks plainly. By default the best fusion against the best single
  // method: the local encoder's fusion against mots+.
  assert.match(await page.textContent('#comparaison p[data-type="courante"]'),
    /hybride local place la bonne fiche plus haut que mots\+ 2 fois, plus bas 3 fois, au même rang 15 fois\./);
  // Its gap with the interval and the gap these questions detect: the terminal's figures
  // (`mesurer --all`: -0.033, [-0.133 ; +0.054], t p = 0.510, detectable 0.147).
  assert.match(await page.textContent('#comparaison p[data-type="courante"]'),
    /Écart de MRR@10 \(hybride local − mots\+\)\s: −0,033, intervalle à 95\s% \[−0,133\u202f; \+0,054\]\s: on ne peut pas conclure \(t apparié p = 0,51\d*, d = [−-]0,\d\d\)\. Avec ces 20 questions, un écart de 0,147 serait décelé 8 fois sur 10\u202f; pour en déceler un de 0,033, il en faudrait environ \d+\./);
  await page.selectOption('#comparer-a', 'mots+');
  await page.selectOption('#comparer-b', 'mots');
  assert.match(await page.textContent('#comparaison p[data-type="courante"]'),
    /mots\+ place la bonne fiche plus haut que mots 6 fois, plus bas 0 fois, au même rang 14 fois\. Test du signe\s: p = 0,031\..*mots\+ l'emporte sur mots sur ces questions/);
  // Thresholds: mots+ separates its calibration half, not all 40 questions.
  const plus = page.locator('.bande-methode[data-methode="mots+"] .seuil-texte');
  assert.match(await plus.textContent(), /: 5,98 \(100\u202f% bien triées\)\s; sur les 20 autres\s: 90\u202f% bien triées\. Sur les 40 questions, aucun seuil ne sépare/);
  assert.equal(await page.locator('.bande-methode[data-methode="mots"] svg line.sans').count(), 10, '5 absentes × 2 strokes');
  // A question of the grid opens its results.
  await page.click('table.grille button.ouvrir:has-text("Allée où passent les voitures")');
  assert.equal(await page.isVisible('#vue-chercher'), true);
  assert.equal(await page.inputValue('#question'), 'Allée où passent les voitures : quels pavés ?');
  assert.match(await page.textContent('#attendue'), /AR-0187/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('exports: CSV, JSON and TREC files read back give the page\'s figures', async () => {
  const { page, context, problems } = await openPage(browser, server.url + '#vue=mesurer');
  const save = async (what) => {
    const [d] = await Promise.all([page.waitForEvent('download'), page.click(`button[data-export="${what}"]`)]);
    return { name: d.suggestedFilename(), text: await readFile(await d.path(), 'utf8') };
  };
  const exported = JSON.parse((await save('json')).text);
  const json = exported.methods;
  assert.deepEqual(json.map((m) => m.method), ['mots', 'mots+', 'sens local', 'hybride local']);
  // Its pairs are the terminal's, number for number (the same f64 work, in wasm and natively).
  const terminal = await mesurerAll();
  assert.deepEqual(exported.statistics, terminal.statistics);
  assert.equal(exported.pairs.length, 12);
  assertClose(exported.pairs, terminal.pairs);
  const csv = await save('csv');
  assert.equal(csv.name, 'mesures.csv');
  const lines = csv.text.trim().split('\n');
  assert.equal(lines[0], 'methode;type;question;fiche_attendue;rang;premiere;score;rang_produit');
  // « Il me faut une plaque pour la salle de bains » expects the 2,50 m plate; any variant counts
  // at the product level.
  assert.ok(lines.slice(1).every((l) => l.split(';').length === 8));
  assert.equal(lines.length, 1 + 4 * 40);
  const qrels = (await save('qrels')).text;
  for (const m of json) {
    const run = await save(`run:${m.method}`);
    assert.equal(run.name, `run-${m.method.replace('+', '-plus').replace(' ', '-')}.txt`);
    // Six fields a line, the run named in one word (« sens local » as sens-local).
    assert.ok(run.text.trim().split('\n').every((l) => l.split(' ').length === 6 && l.endsWith(` ${m.method.replace('+', '-plus').replace(' ', '-')}`)), run.text.slice(0, 200));
    // MRR as trec_eval's recip_rank computes it, over the 35 questions with qrels.
    const relevant = new Map(qrels.trim().split('\n').map((l) => l.split(' ')).map((f) => [f[0], f[2]]));
    const best = new Map();
    // trec_eval -M 10: the first ten lines of each question (an eleventh, tied with the tenth, is
    // there for the pessimistic figures).
    for (const f of run.text.trim().split('\n').map((l) => l.split(' ')).filter((f) => Number(f[3]) <= 10)) {
      if (relevant.get(f[0]) === f[2] && !best.has(f[0])) best.set(f[0], Number(f[3]));
    }
    const mrr = [...relevant.keys()].reduce((s, q) => s + (best.has(q) ? 1 / best.get(q) : 0), 0) / relevant.size;
    const expected = (m.kinds[0].mrr10 * 15 + m.kinds[1].mrr10 * 20) / 35;
    assert.ok(Math.abs(mrr - expected) < 1e-12, `${m.method}: ${mrr} vs ${expected}`);
    // …and the page shows the same MRR@10, rounded.
    const cell = page.locator(`table.comparaison[data-type="courante"] tr[data-methode="${m.method}"] .mrr`);
    const shown = await cell.evaluate((td) => td.firstChild.textContent);
    assert.equal(shown, m.kinds[1].mrr10.toFixed(2).replace('.', ','));
    const worst = m.kinds[1].worst_mrr10.toFixed(2).replace('.', ',');
    assert.equal(await cell.textContent(), worst === shown ? shown : `${shown} (${worst})`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('a shared link restores the view, the question, the methods and the comparison', async () => {
  const { page, context, problems } = await openPage(browser, server.url);
  await enterKey(page, 'cle-secrete-42');
  await pickExample(page, 'Un isolant qui ne brûle pas');
  await page.uncheck('#voir-mots-plus');
  await page.uncheck('#voir-sens');
  await page.click('#onglet-mesurer');
  await page.selectOption('#comparer-a', 'mots');
  await page.selectOption('#comparer-b', 'mots+');
  await page.click('#copier-lien');
  const link = await page.inputValue('#lien');
  assert.ok(!link.includes('cle-secrete'), 'the key is never in a link');
  assert.match(link, /#vue=mesurer&q=Un%20isolant%20qui%20ne%20br%C3%BBle%20pas&m=mots%2Chybride&comparer=mots%2Cmots%2B$/);
  const grid = await gridText(page);
  const pairText = await page.textContent('#comparaison');
  // A learner opens the link in a fresh browser.
  const other = await openPage(browser, link);
  assert.equal(await other.page.isVisible('#vue-mesurer'), true);
  assert.equal(await gridText(other.page), grid);
  assert.equal(await other.page.textContent('#comparaison'), pairText);
  assert.equal(await other.page.inputValue('#comparer-a'), 'mots');
  await other.page.click('#onglet-chercher');
  assert.equal(await other.page.inputValue('#question'), 'Un isolant qui ne brûle pas');
  assert.match(await other.page.textContent('#attendue'), /AR-0063/);
  const shown = await other.page.locator('#resultats .colonne').evaluateAll((cs) => cs.map((c) => c.dataset.methode));
  // hybride is still chosen (its checkbox), but this browser has neither vectors nor key: one line says so.
  assert.deepEqual(shown, ['mots']);
  assert.equal(await other.page.isChecked('#voir-hybride'), true);
  assert.match(await other.page.textContent('#indisponibles'), /^hybride\s: il faut les vecteurs des fiches/);
  assert.equal(await other.page.inputValue('#cle'), '');
  assert.deepEqual(problems, []);
  assert.deepEqual(other.problems, []);
  await other.context.close();
  await context.close();
});

test('a crafted fragment injects no markup and cannot redirect the key', async () => {
  const requests = [];
  const crafted = '#q=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E%3C%2Fmark%3E%3Cscript%3Ex()%3C%2Fscript%3E'
    + '&key=sk-vol&api=http%3A%2F%2Fevil.example&apiUrl=http%3A%2F%2Fevil.example&m=mots,%3Cb%3E&vue=%3Cscript%3E';
  const { page, context, problems } = await openPage(browser, null);
  page.on('request', (r) => requests.push(r.url()));
  let dialogs = 0;
  page.on('dialog', async (d) => { dialogs += 1; await d.dismiss(); });
  await page.goto(server.url + crafted);
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.inputValue('#question'), '<img src=x onerror=alert(1)></mark><script>x()</script>');
  assert.equal(await page.locator('#app img').count(), 0);
  assert.equal(await page.locator('#app script').count(), 0);
  assert.equal(await page.inputValue('#cle'), '');
  const shown = await page.locator('#resultats .colonne').evaluateAll((cs) => cs.map((c) => c.dataset.methode));
  assert.deepEqual(shown, ['mots']);
  assert.equal(await page.isVisible('#vue-chercher'), true);
  await page.waitForTimeout(200);
  assert.equal(dialogs, 0);
  assert.ok(requests.every((u) => u.startsWith(server.origin)), requests.join('\n'));
  assert.deepEqual(problems, []);
  await context.close();
});

test('« Importer un run »: an exported run comes back with the same figures; a bad run is refused whole', async () => {
  const { page, context, problems } = await openPage(browser, server.url + '#vue=mesurer');
  const [d] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="run:mots+"]')]);
  const run = await readFile(await d.path(), 'utf8');
  const rows = (kind) => page.locator(`table.comparaison[data-type="${kind}"] tbody tr`);
  const cells = async (kind, name) => page.locator(`table.comparaison[data-type="${kind}"] tr[data-methode="${name}"] td`).allTextContents();
  // Bad runs first: each refused with its line and reason, the tables untouched.
  const bad = [
    [run.replace(/^q01 Q0 (\S+) 1 (\S+) mots-plus$/m, 'q01 Q0 $1 1 $2'), /ligne 1\s: 5 champs au lieu de 6/],
    [run + 'q77 Q0 AR-0001 1 1.0 mots-plus\n', /ligne \d+\s: aucune question n'a l'identifiant «\sq77\s»/],
    [run.replace(/^q02 Q0 \S+ 1 /m, 'q02 Q0 AR-9999 1 '), /ligne \d+\s: aucune fiche n'a l'identifiant «\sAR-9999\s»/],
    [run.replace(/^(q03 Q0 \S+ 1 )(\S+)/m, '$1quatre'), /ligne \d+\s: le score «\squatre\s» n'est pas un nombre/],
  ];
  for (const [text, reason] of bad) {
    await page.setInputFiles('#importer-run', { name: 'moteur.txt', mimeType: 'text/plain', buffer: Buffer.from(text) });
    await page.waitForSelector('#run-etat .erreur-api');
    assert.match(await page.textContent('#run-etat'), new RegExp(`^moteur\\.txt, ${reason.source}.*Rien n'a été mesuré\\.$`));
    assert.equal(await rows('courante').count(), 4, 'nothing measured');
  }
  // The run as exported: a fifth row, named « mots+ (run) », with exactly mots+'s figures.
  await page.setInputFiles('#importer-run', { name: 'run-mots-plus.txt', mimeType: 'text/plain', buffer: Buffer.from(run) });
  await page.waitForSelector('#run-etat .run-ok');
  assert.match(await page.textContent('#run-etat'), /Run «\smots-plus\s» \(run-mots-plus\.txt, \d+ lignes\) mesuré sur les 40 questions/);
  for (const kind of ['exacte', 'courante']) {
    assert.equal(await rows(kind).count(), 5);
    assert.deepEqual(await cells(kind, 'mots-plus'), await cells(kind, 'mots+'));
  }
  // It is in the grid, the pair comparison and the exports like a method.
  assert.equal(await page.locator('table.grille thead button[data-tri="mots-plus"]').count(), 1);
  const allee = page.locator('table.grille tr', { hasText: 'Allée où passent les voitures' });
  assert.equal(await allee.locator('td.rang-grille').nth(4).textContent(), '1–2');
  await page.selectOption('#comparer-a', 'mots-plus');
  await page.selectOption('#comparer-b', 'mots+');
  assert.match(await page.textContent('#comparaison p[data-type="courante"]'), /mots-plus place la bonne fiche plus haut que mots\+ 0 fois, plus bas 0 fois, au même rang 20 fois/);
  const [j] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="json"]')]);
  const json = JSON.parse(await readFile(await j.path(), 'utf8')).methods;
  assert.deepEqual(json.map((m) => m.method), ['mots', 'mots+', 'sens local', 'hybride local', 'mots-plus']);
  const named = (n) => json.find((m) => m.method === n);
  assert.deepEqual(named('mots-plus').kinds, named('mots+').kinds);
  const [r] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export="run:mots-plus"]')]);
  assert.equal(r.suggestedFilename(), 'run-mots-plus.txt');
  assert.equal(await readFile(await r.path(), 'utf8'), run, 'the run exported again is the run imported');
  await page.click('button[data-retirer-runs]');
  assert.equal(await rows('courante').count(), 4);
  assert.deepEqual(problems, []);
  await context.close();
});

test('« Questions »: pairs of the pool judged by hand move « Mesurer »\'s graded table, and their qrels exported give the terminal the same figures', async () => {
  const { page, context, problems } = await openPage(browser, server.url + '#vue=questions');
  await page.waitForSelector('#juger-paire:not([hidden])');
  // Wait for the four methods measured without a key: the pool is of them all.
  await page.click('#onglet-mesurer');
  await page.waitForSelector('table.graduee tr:nth-child(4)', { timeout: 60000 });
  await page.click('#onglet-questions');
  const progress = () => page.getAttribute('#juger-progres', 'value');
  const grades = [3, 0, 1, 2, 0, 0, 1, 2, 3, 0, 1, 1];
  for (const [i, g] of grades.entries()) {
    const before = await page.getAttribute('#juger-paire', 'data-fiche') + await page.getAttribute('#juger-paire', 'data-question');
    await page.click(`#juger-paire button[data-note="${g}"]`);
    await page.waitForFunction((n) => document.querySelector('#juger-progres').getAttribute('value') === String(n), i + 1);
    assert.notEqual(await page.getAttribute('#juger-paire', 'data-fiche') + await page.getAttribute('#juger-paire', 'data-question'), before);
  }
  assert.equal(await progress(), String(grades.length));
  const [d] = await Promise.all([page.waitForEvent('download'), page.click('#juger-exporter')]);
  assert.equal(d.suggestedFilename(), 'qrels-graduees.txt');
  const qrels = await readFile(await d.path(), 'utf8');
  // The derived qrels (expected fiche 3, its variants 2) and the 12 hand judgments over them.
  const derived = await readFile(new URL('../../data/qrels-graduees.txt', import.meta.url), 'utf8');
  assert.equal(qrels.trim().split('\n').length, derived.trim().split('\n').length + grades.length);
  const file = join(tmpdir(), `qrels-main-${process.pid}.txt`);
  await writeFile(file, qrels);
  const { stdout } = await promisify(execFile)(new URL('../../target/release/mesurer', import.meta.url).pathname,
    ['--all', '--qrels', file, '--vectors', 'none'], { cwd: new URL('../../', import.meta.url).pathname, maxBuffer: 64 << 20 });
  const terminal = Object.fromEntries(stdout.split('Mesures graduées')[1].split('\n').slice(2)
    .map((l) => l.match(/^(\S+(?: local)?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)/)).filter(Boolean)
    .map((m) => [m[1], m.slice(2, 5).map(Number)]));
  await page.click('#onglet-mesurer');
  const rows = await page.$$eval('table.graduee tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.equal(rows.length, 4);
  // The page rounds to 2 decimals what the terminal prints with 3: equal within those roundings.
  for (const r of rows) {
    const page = r.slice(1).map((x) => Number(x.replace(',', '.')));
    assert.ok(terminal[r[0]] && page.every((x, i) => Math.abs(x - terminal[r[0]][i]) <= 0.0051),
      `${r[0]}: the page ${page}, the terminal ${terminal[r[0]]}`);
  }
  // Judged@10 moved from the derived qrels' 0,21 for mots.
  assert.notEqual(rows.find((r) => r[0] === 'mots')[3], '0,21');
  // Another judge: the hand's 12 lines with every grade one step up (capped at 3), and two pairs
  // the hand did not judge. The page's agreement is the terminal's --accord on the same files.
  const derivedLines = new Set(derived.trim().split('\n'));
  const hand = qrels.trim().split('\n').filter((l) => !derivedLines.has(l));
  assert.equal(hand.length, grades.length);
  await page.click('#onglet-questions');
  const next = [];
  for (let i = 0; i < 2; i += 1) {
    const q = Number(await page.getAttribute('#juger-paire', 'data-question'));
    const f = await page.getAttribute('#juger-paire', 'data-fiche');
    next.push(`q${String(q + 1).padStart(2, '0')} 0 ${f} 1`);
    await page.click('#juger-paire button[data-note="0"]');
    await page.waitForFunction((n) => document.querySelector('#juger-progres').getAttribute('value') === String(n), grades.length + i + 1);
  }
  await page.click('#juger-annuler');
  await page.click('#juger-annuler');
  const other = hand.map((l) => l.replace(/ (\d)$/, (_, g) => ` ${Math.min(3, Number(g) + 1)}`)).concat(next).join('\n') + '\n';
  await page.setInputFiles('#juger-importer', { name: 'collegue.txt', mimeType: 'text/plain', buffer: Buffer.from(other) });
  const said = await (await page.waitForSelector('#juger-accord:not([hidden]) p')).textContent();
  const mine = join(tmpdir(), `qrels-hand-${process.pid}.txt`);
  const theirs = join(tmpdir(), `qrels-other-${process.pid}.txt`);
  await writeFile(mine, hand.join('\n') + '\n');
  await writeFile(theirs, other);
  const accord = (await promisify(execFile)(new URL('../../target/release/mesurer', import.meta.url).pathname,
    ['--qrels', mine, '--accord', theirs, '--vectors', 'none'], { cwd: new URL('../../', import.meta.url).pathname })).stdout;
  const kappa = Number(accord.match(/kappa pondéré \(linéaire\) : ([\d.]+)/)[1]);
  assert.match(said, new RegExp(`^«\u202fcollegue\\.txt\u202f» et vous\u00a0: 12 fiches notées des deux côtés`));
  const shown = Number(said.match(/κ pondéré = ([\d,]+)/)[1].replace(',', '.'));
  assert.ok(Math.abs(shown - kappa) <= 0.0051, `the page's κ ${shown}, the terminal's ${kappa}`);
  // « Reprendre »: the two pairs it alone graded become the learner's.
  assert.match(await page.textContent('button[data-pool="reprendre"]'), /\(2 fiches\)/);
  await page.click('button[data-pool="reprendre"]');
  await page.waitForFunction((n) => document.querySelector('#juger-progres').getAttribute('value') === String(n), grades.length + 2);
  // A wrong file: refused with its line, nothing taken from it.
  await page.setInputFiles('#juger-importer', { name: 'faux.txt', mimeType: 'text/plain', buffer: Buffer.from('q01 0 AR-0003 3\nq02 0 AR-9999 1\n') });
  assert.match(await (await page.waitForSelector('#juger-refus:not([hidden])')).textContent(), /^faux\.txt, ligne 2\s:\saucune fiche n'a l'identifiant «\sAR-9999\s» dans ce catalogue\. Rien n'a été gardé\.$/);
  assert.match(said, /collegue/);
  assert.deepEqual(problems, []);
  await context.close();
});
