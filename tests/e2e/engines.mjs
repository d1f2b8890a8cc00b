// The three engines a learner's browser runs on, driven alike for the cross-engine tests
// (browsers.test.mjs): Chromium (Debian's, by playwright-core over CDP), Firefox ESR (Debian's, by
// puppeteer-core over WebDriver BiDi: no geckodriver) and WebKit (Debian's WebKitGTK MiniBrowser,
// the engine family of Safari, by WebKitWebDriver over W3C WebDriver, under Xvfb since MiniBrowser
// has no headless mode). scripts/setup.sh test installs all three from Debian; none is downloaded.
//
// Every page is driven from inside (`run` evaluates a function in the page, `type` sets a field
// and fires `input`, `click` calls `click()`): the same steps in every engine. What goes wrong is
// recorded inside the page too, from before its first script (`recorder`, served by the tests'
// server in place of index.html's first line): console errors, page errors, unhandled rejections,
// resources that fail to load, Content-Security-Policy violations and errors of the page's
// workers. WebKitWebDriver has no log endpoint, so this is the one record that every engine has;
// Chromium's and Firefox's own consoles are read as well.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ENGINES = ['chromium', 'firefox', 'webkit'];

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const FIREFOX = process.env.FIREFOX ?? '/usr/bin/firefox-esr';
const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver';
const MINIBROWSER = process.env.MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
/** Safari's storage features, off in WebKitGTK's defaults (TOOLCHAIN.md). */
export const SAFARI_STORAGE = 'StorageAPI,StorageAPIEstimate,FileSystem,AccessHandle,FileSystemWritableStream';

/** Why `engine` cannot run here, or null. With CI=true a missing engine is an error. */
export function missing(engine) {
  const need = {
    chromium: [CHROMIUM],
    firefox: [FIREFOX],
    webkit: [WEBKIT_DRIVER, MINIBROWSER, '/usr/bin/xvfb-run'],
  }[engine];
  const absent = need.filter((p) => !existsSync(p));
  return absent.length ? `${absent.join(', ')} absent (bash scripts/setup.sh test installs it)` : null;
}

/** The script the tests' server puts first in the page: what goes wrong, kept in
 *  `window.__problemes` (and every console message in `window.__messages`). */
export const RECORDER = `(() => {
  const problems = [];
  const messages = [];
  window.__problemes = problems;
  window.__messages = messages;
  const text = (v) => {
    if (v instanceof Error) return v.name + ': ' + v.message;
    if (typeof v === 'string') return v;
    try { return JSON.stringify(v); } catch { return String(v); }
  };
  for (const level of ['error', 'warn', 'log', 'info']) {
    const original = console[level];
    console[level] = function (...args) {
      const line = args.map(text).join(' ');
      messages.push(level + ': ' + line);
      if (level === 'error') problems.push('console.error: ' + line);
      return original.apply(this, args);
    };
  }
  addEventListener('error', (e) => {
    const t = e.target;
    if (t && t !== window && (t.src || t.href)) problems.push('resource failed: ' + (t.src || t.href));
    else problems.push('page error: ' + e.message);
  }, true);
  addEventListener('unhandledrejection', (e) => problems.push('unhandled rejection: ' + text(e.reason)));
  document.addEventListener('securitypolicyviolation', (e) =>
    problems.push('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));
  const Base = window.Worker;
  window.Worker = class extends Base {
    constructor(...args) {
      super(...args);
      this.addEventListener('error', (e) => problems.push('worker error: ' + (e.message || 'unknown')));
    }
  };
})();`;

/** Puts the recorder first in a page served by the tests' server (allowed by the page's
 *  script-src 'self'). */
export function withRecorder(html, src = '__enregistreur.js') {
  return html.replace('<meta charset="utf-8">', `<meta charset="utf-8">\n  <script src="${src}"></script>`);
}

async function freePort() {
  const server = createServer();
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  await new Promise((ok) => server.close(ok));
  return port;
}

/** A page of any engine, driven the same way. */
class Tab {
  constructor(engine, driver) {
    this.engine = engine;
    this.driver = driver;
    this.consoleProblems = [];
  }

  /** Evaluates `fn(...args)` in the page (it may return a promise) and returns its JSON value. */
  async run(fn, ...args) {
    return this.driver.run(`return (${fn.toString()})(...arguments)`, args);
  }

  /** Waits until `fn(...args)` is truthy in the page; returns its value. */
  async until(fn, { timeout = 20000, what = fn.toString(), args = [] } = {}) {
    const end = Date.now() + timeout;
    let last;
    for (;;) {
      try {
        last = await this.run(fn, ...args);
        if (last) return last;
      } catch (e) {
        // A navigation in progress: try again.
        last = e.message;
      }
      if (Date.now() > end) {
        throw new Error(`${this.engine}: not reached in ${timeout} ms: ${what} (last: ${JSON.stringify(last)})`
          + `\n  the page then: ${JSON.stringify(await this.state())}`);
      }
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }

  /** What a failed wait reports of the page: its alert, its results' text and what went wrong. */
  async state() {
    try {
      return await this.run(() => {
        const text = (sel) => document.querySelector(sel)?.innerText?.replace(/\s+/g, ' ').slice(0, 800) ?? null;
        return { ready: document.body?.dataset.ready ?? null, erreur: text('#erreur'), resultats: text('#resultats'),
          problemes: window.__problemes ?? null };
      });
    } catch (e) {
      return `unreadable: ${e.message}`;
    }
  }

  async goto(url) {
    await this.driver.goto(url);
  }

  /** Reloads the page and waits for the new document to be ready. */
  async reload() {
    await this.run(() => { window.__ancien = true; setTimeout(() => location.reload(), 0); });
    await this.until(() => !window.__ancien && document.body?.dataset.ready === 'true',
      { timeout: 30000, what: 'the reloaded page ready' });
  }

  async ready(timeout = 30000) {
    await this.until(() => document.body?.dataset.ready === 'true', { timeout, what: 'body[data-ready]' });
  }

  /** Sets the field's value as typing does (an `input` event), then Entrée with `enter`. */
  async type(selector, text, { enter = false } = {}) {
    await this.until((sel) => Boolean(document.querySelector(sel)), { args: [selector], what: selector });
    await this.run((sel, value, enterKey) => {
      const el = document.querySelector(sel);
      el.focus();
      el.value = value;
      el.dispatchEvent(new Event('input', { bubbles: true }));
      if (enterKey) {
        el.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
        el.form?.requestSubmit?.();
      }
    }, selector, text, enter);
  }

  async click(selector) {
    await this.until((sel) => {
      const el = document.querySelector(sel);
      if (!el || el.inert || el.closest('[inert]') || el.disabled) return false;
      el.click();
      return true;
    }, { args: [selector], what: `click ${selector}` });
  }

  /** Gives `files` ([{ name, bytes: Buffer }]) to the file input `selector`, as choosing them does. */
  async files(selector, files) {
    await this.run((sel, list) => {
      const transfer = new DataTransfer();
      for (const { name, base64 } of list) {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        transfer.items.add(new File([bytes], name));
      }
      const input = document.querySelector(sel);
      input.files = transfer.files;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }, selector, files.map((f) => ({ name: f.name, base64: f.bytes.toString('base64') })));
  }

  /** Everything that went wrong in this page: the recorder's, plus the engine's console where it
   *  can be read. */
  async problems() {
    const inPage = await this.run(() => window.__problemes ?? ['the recorder did not run']);
    return [...inPage, ...this.consoleProblems];
  }

  async screenshot(path) {
    await this.driver.screenshot(path);
  }

  async close() {
    await this.driver.close();
  }
}

/** Starts `engine`. `env` goes to the browser (JavaScriptCore's flags); `features` are WebKit's
 *  MiniBrowser features to turn on (e.g. SAFARI_STORAGE). */
export async function startEngine(engine, { env = {}, features = null } = {}) {
  const started = engine === 'chromium' ? await chromiumEngine()
    : engine === 'firefox' ? await firefoxEngine()
      : engine === 'webkit' ? await webkitEngine({ env, features })
        : null;
  if (!started) throw new Error(`unknown engine ${engine}`);
  // Its open pages, so that a failed test's can be closed.
  const open = new Set();
  const openPage = started.open.bind(started);
  started.open = async (options) => {
    const tab = await openPage(options);
    open.add(tab);
    const close = tab.close.bind(tab);
    tab.close = async () => { open.delete(tab); await close(); };
    return tab;
  };
  started.closeAll = async () => { for (const tab of [...open]) await tab.close(); };
  return started;
}

async function chromiumEngine() {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  return {
    name: 'chromium',
    version: browser.version(),
    async open({ width = 1366, height = 900 } = {}) {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      const tab = new Tab('chromium', {
        run: (body, args) => page.evaluate(([b, a]) => new Function(b)(...a), [body, args]),
        goto: (url) => page.goto(url),
        screenshot: (path) => page.screenshot({ path, fullPage: true }),
        close: () => context.close(),
      });
      page.on('console', (m) => { if (m.type() === 'error') tab.consoleProblems.push(`console: ${m.text()}`); });
      return tab;
    },
    close: () => browser.close(),
  };
}

async function firefoxEngine() {
  const { default: puppeteer } = await import('puppeteer-core');
  const profile = await mkdtemp(join(tmpdir(), 'rag-fiches-firefox-'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    userDataDir: profile,
  });
  return {
    name: 'firefox',
    version: await browser.version(),
    async open({ width = 1366, height = 900 } = {}) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width, height });
      const tab = new Tab('firefox', {
        run: (body, args) => page.evaluate((b, a) => new Function(b)(...a), body, args),
        goto: (url) => page.goto(url),
        screenshot: (path) => page.screenshot({ path, fullPage: true }),
        close: () => context.close(),
      });
      page.on('console', (m) => { if (m.type() === 'error') tab.consoleProblems.push(`console: ${m.text()}`); });
      page.on('pageerror', (e) => tab.consoleProblems.push(`page error: ${e.message}`));
      return tab;
    },
    close: async () => { await browser.close(); await rm(profile, { recursive: true, force: true }); },
  };
}

async function webkitEngine({ env, features }) {
  const port = await freePort();
  const driver = spawn('xvfb-run', ['-a', '-s', '-screen 0 1600x1200x24', WEBKIT_DRIVER, `--port=${port}`],
    { stdio: 'ignore', detached: true, env: { ...process.env, ...env } });
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const response = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (json.value?.error) throw new Error(`WebDriver ${path}: ${json.value.error}: ${json.value.message}`);
    return json.value;
  };
  const end = Date.now() + 20000;
  for (;;) {
    try {
      if ((await call('GET', '/status')).ready) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > end) throw new Error('WebKitWebDriver did not start in 20 s');
    await new Promise((ok) => setTimeout(ok, 200));
  }
  const stop = () => { try { process.kill(-driver.pid, 'SIGTERM'); } catch { /* gone */ } };
  const args = ['--automation', ...(features ? [`--features=${features}`] : [])];
  return {
    name: 'webkit',
    version: null,
    async open({ width = 1366, height = 900 } = {}) {
      const session = await call('POST', '/session', {
        capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: MINIBROWSER, args } } },
      });
      const id = session.sessionId;
      this.version = `MiniBrowser (WebKitGTK) ${session.capabilities.browserVersion}`;
      // MiniBrowser's window is at least 447 px wide (TOOLCHAIN.md): a phone's 390 is not to be had.
      await call('POST', `/session/${id}/window/rect`, { width: Math.max(width, 447), height });
      await call('POST', `/session/${id}/timeouts`, { script: 180000, pageLoad: 60000 });
      const tab = new Tab('webkit', {
        run: (body, args2) => call('POST', `/session/${id}/execute/async`, {
          script: `const done = arguments[arguments.length - 1];
            Promise.resolve().then(() => (function () { ${body} }).apply(null, Array.from(arguments).slice(0, -1)))
              .then((v) => done({ ok: v === undefined ? null : v }), (e) => done({ error: String(e) }));`,
          args: args2,
        }).then((r) => {
          if (r && 'error' in r) throw new Error(r.error);
          return r?.ok;
        }),
        goto: (url) => call('POST', `/session/${id}/url`, { url }),
        screenshot: async (path) => {
          const { writeFile } = await import('node:fs/promises');
          await writeFile(path, Buffer.from(await call('GET', `/session/${id}/screenshot`), 'base64'));
        },
        close: () => call('DELETE', `/session/${id}`).catch(() => {}),
      });
      return tab;
    },
    close: async () => stop(),
  };
}
