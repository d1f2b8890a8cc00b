// The local encoder in the page (prints figures; asserts nothing): the model fetched, cached
// and prepared, the longest main-thread task in each phase (a `longtask` observer; the phase is
// read from the column's status line every 5 ms), the same on a reload (the model from the
// browser's cache), a plain JavaScript fetch of the same file as the browser's own baseline, and
// a typed question's time from input to its sens local results once the model is ready.
// Run after `trunk build --release` with the model in dist/ (bash scripts/modele.sh):
//   node tests/e2e/bench-local.mjs
import { serveDist, launch } from './harness.mjs';

const server = await serveDist();
const browser = await launch();
const page = await (await browser.newContext()).newPage();

const observe = () => page.evaluate(() => {
  window.phases = [];
  window.longTasks = [];
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) window.longTasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask' });
  let last = '';
  const poll = () => {
    const status = document.querySelector('#colonne-sens-local p[role="status"]')?.textContent ?? '';
    const phase = /^Chargement/.test(status) ? 'téléchargement' : /^Préparation/.test(status) ? 'préparation'
      : /^Plongement/.test(status) ? 'plongement' : document.querySelector('#colonne-sens-local li.resultat') ? 'fin' : 'début';
    if (phase !== last) { last = phase; window.phases.push([phase, performance.now()]); }
    if (phase !== 'fin') setTimeout(poll, 5);
  };
  poll();
});

// Long tasks by phase: a task belongs to the phase it started in.
const report = async (label) => {
  const { phases, longTasks } = await page.evaluate(() => ({ phases: window.phases, longTasks: window.longTasks }));
  const parts = [];
  for (let i = 0; i < phases.length - 1; i++) {
    const [name, start] = phases[i];
    const end = phases[i + 1][1];
    const tasks = longTasks.filter(([s]) => s >= start - 1 && s < end).map(([, d]) => d);
    parts.push(`${name} ${Math.round(end - start)} ms (longest task ${Math.round(Math.max(0, ...tasks))} ms, ${tasks.length} over 50 ms)`);
  }
  const total = phases[phases.length - 1][1] - phases[0][1];
  console.log(`${label}: ${Math.round(total)} ms from typing to ranked; ${parts.join('; ')}`);
};

await page.goto(server.url);
await page.waitForSelector('body[data-ready="true"]');
await page.check('#voir-sens-local');
await page.waitForTimeout(300);
await observe();
await page.fill('#question', 'Une plaque de plâtre pour une pièce humide');
await page.locator('#colonne-sens-local li.resultat').first().waitFor({ timeout: 120000 });
await report('first visit (model fetched from localhost, cached, prepared)');

const baseline = await page.evaluate(async () => {
  const tasks = [];
  const o = new PerformanceObserver((l) => { for (const e of l.getEntries()) tasks.push(e.duration); });
  o.observe({ type: 'longtask' });
  const reader = (await fetch(`data/modele-local/tete.safetensors.xz?${Math.random()}`)).body.getReader();
  const chunks = [];
  for (;;) { const { done, value } = await reader.read(); if (done) break; chunks.push(value); }
  const blob = new Blob(chunks);
  await new Promise((r) => setTimeout(r, 300));
  o.disconnect();
  return { size: blob.size, tasks };
});
console.log(`baseline, the same file streamed by plain JavaScript into a Blob: longest task ${Math.round(Math.max(0, ...baseline.tasks))} ms (${baseline.tasks.length} over 50 ms)`);

await page.reload();
await page.waitForSelector('body[data-ready="true"]');
await page.waitForTimeout(300);
await observe();
await page.fill('#question', 'Une colle pour la faïence de la cuisine');
await page.locator('#colonne-sens-local li.resultat').first().waitFor({ timeout: 120000 });
await report('reload (model from the browser cache, prepared)');

const questions = ['Isoler les combles en soufflant', 'Une colle pour la faïence de la cuisine',
  'Cloison contre le bruit', 'Quel gravier pour une allée', 'Fixer une étagère lourde',
  'Un enduit pour un vieux mur', 'Des dalles pour la piscine', 'Reboucher une marche en béton',
  'Protéger une poutre', 'Mortier pour monter des parpaings', 'Peinture pour la salle de bains'];
const times = [];
for (const q of questions) {
  const t = await page.evaluate(async (q) => {
    const box = document.querySelector('#question');
    const start = performance.now();
    box.value = q;
    box.dispatchEvent(new Event('input', { bubbles: true }));
    // Until the column shows this question's results.
    for (;;) {
      await new Promise((r) => setTimeout(r, 0));
      const col = document.querySelector('#colonne-sens-local');
      if (col && col.querySelector('li.resultat') && !col.querySelector('p[role="status"]') && !col.hasAttribute('aria-busy') && window.lastQ !== q) {
        window.lastQ = q;
        return performance.now() - start;
      }
      if (performance.now() - start > 10000) return NaN;
    }
  }, q);
  times.push(t);
}
times.sort((a, b) => a - b);
console.log(`a typed question, input to sens local results (model ready): median ${times[5].toFixed(1)} ms, min ${times[0].toFixed(1)}, max ${times[10].toFixed(1)} (11 questions)`);

// « Vos données »: the exercise's own files under other names, so the page embeds all 200
// fiches itself (the model is in the cache by now): the time from the first progress line to
// the measured row, per fiche, and the longest task meanwhile.
const { readFile } = await import('node:fs/promises');
const file = async (name, path) => ({ name, mimeType: 'application/octet-stream', buffer: await readFile(new URL(path, import.meta.url)) });
await page.uncheck('#voir-sens-local');
await page.setInputFiles('#fichiers', [await file('mes-fiches.jsonl', '../../data/fiches.jsonl'), await file('mes-questions.csv', '../../data/questions.csv')]);
await page.waitForFunction(() => /vos données/.test(document.querySelector('#resume').textContent));
await page.evaluate(() => {
  window.longTasks = [];
  window.firstProgress = null;
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask' });
  new MutationObserver(() => {
    const p = document.querySelector('[data-methode="sens local"] p[role="status"]');
    if (!window.firstProgress && p && /^Calcul des vecteurs du modèle local pour vos fiches et vos questions/.test(p.textContent)) window.firstProgress = performance.now();
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
});
await page.check('#voir-sens-local');
await page.waitForFunction(() => window.firstProgress, null, { timeout: 120000 });
await page.click('#onglet-mesurer');
await page.locator('table.comparaison[data-type="courante"] tr[data-methode="sens local"]').waitFor({ timeout: 300000 });
const own = await page.evaluate(() => {
  const t = performance.now() - window.firstProgress;
  const tasks = window.longTasks.filter(([s]) => s >= window.firstProgress).map(([, d]) => d);
  return { t, tasks };
});
console.log(`« Vos données », the exercise's 200 fiches embedded in the page and measured: ${Math.round(own.t)} ms (${(own.t / 200).toFixed(1)} ms per fiche); longest task ${Math.round(Math.max(0, ...own.tasks))} ms (${own.tasks.length} over 50 ms)`);
await browser.close();
await server.close?.();
process.exit(0);
