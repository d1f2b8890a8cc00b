// Ring 2 (wasm-pack test: tests/web.rs) in WebKit. wasm-pack drives Chromium and Firefox through
// their WebDriver servers, but for WebKit it knows only Safari's safaridriver. So the test runner
// is started in its interactive mode (NO_HEADLESS=1: it serves the tests' page and waits), and
// WebKitGTK's MiniBrowser, driven by WebKitWebDriver (engines.mjs), opens that page; the runner's
// output is read from the page until it says « test result ». Without `relaxed`: WebKit, as
// Safari, does not compile relaxed SIMD by default.
//
//   node tests/e2e/ring2-webkit.mjs      (from the repository's root or from tests/e2e)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { startEngine, missing } from './engines.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const why = missing('webkit');
if (why) {
  if (process.env.CI === 'true') throw new Error(`ring 2 in WebKit: ${why}`);
  console.log(`*** SKIPPED ring 2 in WebKit: ${why} ***`);
  process.exit(0);
}
const port = await new Promise((ok) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const { port: p } = s.address(); s.close(() => ok(p)); });
});
const runner = spawn('wasm-pack', ['test', '--chrome', '--', '--locked', '--test', 'web', '--features', 'api'], {
  cwd: ROOT,
  detached: true,
  env: { ...process.env, NO_HEADLESS: '1', WASM_BINDGEN_TEST_ADDRESS: `127.0.0.1:${port}` },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const stop = () => { try { process.kill(-runner.pid, 'SIGTERM'); } catch { /* gone */ } };
let code = 1;
try {
  const url = await new Promise((ok, fail) => {
    let seen = '';
    runner.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      seen += chunk;
      const m = seen.match(/http:\/\/127\.0\.0\.1:\d+\S*/);
      if (m) ok(m[0]);
    });
    runner.on('exit', (c) => fail(new Error(`wasm-pack ended (${c}) before serving the tests`)));
  });
  const engine = await startEngine('webkit');
  try {
    const tab = await engine.open();
    await tab.goto(url);
    const output = await tab.until(() => {
      const text = document.getElementById('output')?.textContent ?? '';
      return /test result: /.test(text) ? text : null;
    }, { timeout: 300000, what: 'the test runner\'s « test result »' });
    console.log(`ring 2 in ${engine.version}:\n${output}`);
    code = /test result: ok\./.test(output) ? 0 : 1;
    await tab.close();
  } finally {
    await engine.close();
  }
} finally {
  stop();
}
process.exit(code);
