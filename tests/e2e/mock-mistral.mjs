// A local stand-in for Mistral's API, for tests without a key. It answers POST /v1/embeddings
// with seed 001's fake embedder (MD5-hashed bag of words, 1024 dims, norm 1) under the model name
// mistral-embed, and POST /v1/chat/completions deterministically (it cites the first fiche sent
// that shares a word of five letters or more with the question, else answers « pas dans le
// catalogue »; a question containing "invente" gets an invented citation, one containing
// "morceaux" an answer as a list of chunks), applies CORS as the real API does (only the Authorization and
// Content-Type request headers are allowed, so any other header fails the preflight), and fails on
// demand: POST /__faults with a JSON list of faults, each used by one API request in order ({} for
// none):
//   {"status": 401|403|429|500|502|503, "retryAfter": "1"}  an error with a JSON error body
//   {"html": true}        a 200 whose body is an HTML page
//   {"malformed": true}   a 200 with truncated JSON
//   {"hang": true}        never answers (until the client gives up)
//   {"delayMs": 1500}     answers normally, late
//   {"nocors": true}      answers without CORS headers: the browser blocks the response
// GET /__log lists the requests seen; POST /__reset clears faults and log.
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';

export const DIM = 1024;

/** The mock model's answer to a chat request, from the fiches and the question it was sent. */
export function mockAnswer(messages) {
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  const at = user.lastIndexOf('\nQuestion : ');
  const question = at < 0 ? '' : user.slice(at + '\nQuestion : '.length).trim();
  const fiches = [...user.slice(0, Math.max(at, 0)).matchAll(/^\[([^\]\n]+)\] (.*)\n(.*)$/gm)]
    .map((m) => ({ id: m[1], nom: m[2], texte: m[3] }));
  if (/invente/i.test(question)) return { question, text: 'Voyez la fiche [AR-9999].', cited: 'AR-9999' };
  const words = question.toLowerCase().match(/[a-zà-ÿœ]{5,}/g) ?? [];
  for (const f of fiches) {
    const text = ` ${f.nom} ${f.texte} `.toLowerCase();
    const hit = words.find((w) => new RegExp(`[^a-zà-ÿœ]${w}[^a-zà-ÿœ]`).test(text));
    if (hit) return { question, text: `D'après la fiche [${f.id}], ${f.nom} convient (« ${hit} »).`, cited: f.id };
  }
  return { question, text: 'pas dans le catalogue', cited: null };
}

/** Seed 001's fake_embed, as src/embed.rs implements it. */
export function fakeEmbed(text, dim = DIM) {
  const v = new Float64Array(dim);
  const words = text.toLowerCase().replace(/[?.]/g, ' ').split(/\s+/).filter(Boolean);
  for (const w of words) {
    const hex = createHash('md5').update(w, 'utf8').digest('hex');
    v[Number(BigInt('0x' + hex) % BigInt(dim))] += 1;
  }
  const norm = Math.max(Math.hypot(...v), 1e-9);
  return Array.from(v, (x) => Math.fround(x / norm));
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-expose-headers': 'retry-after',
};

export async function startMock(port) {
  const state = { faults: [], log: [], hung: [] };
  const server = createServer((req, res) => {
    // Decode the body once, whole: a multi-byte character (« î », « ² ») split across two TCP
    // chunks turned into U+FFFD when each chunk was decoded alone, and a fiche then embedded
    // differently depending on how the request happened to be cut.
    const chunks = [];
    req.on('data', (c) => { chunks.push(c); });
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url, 'http://127.0.0.1');
      if (url.pathname === '/__faults' && req.method === 'POST') {
        state.faults.push(...JSON.parse(body));
        res.writeHead(204).end();
        return;
      }
      if (url.pathname === '/__reset') {
        state.faults = [];
        state.log = [];
        res.writeHead(204).end();
        return;
      }
      if (url.pathname === '/__log') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(state.log));
        return;
      }
      state.log.push({
        method: req.method,
        path: url.pathname,
        search: url.search,
        headers: req.headers,
        body: req.method === 'POST' ? body : undefined,
      });
      if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS).end();
        return;
      }
      const known = ['/v1/embeddings', '/v1/chat/completions'];
      if (!known.includes(url.pathname) || req.method !== 'POST') {
        res.writeHead(404, { ...CORS, 'content-type': 'application/json' })
          .end(JSON.stringify({ object: 'error', message: 'Not found', type: 'invalid_request', code: null }));
        return;
      }
      const auth = req.headers.authorization ?? '';
      const fault = state.faults.shift() ?? {};
      if (fault.hang) {
        state.hung.push(res);
        return;
      }
      if (fault.delayMs) await new Promise((ok) => setTimeout(ok, fault.delayMs));
      if (!auth.startsWith('Bearer ') || auth === 'Bearer refusee') fault.status ??= 401;
      if (fault.status) {
        const headers = { ...CORS, 'content-type': 'application/json' };
        if (fault.retryAfter) headers['retry-after'] = fault.retryAfter;
        const message = fault.status === 401 ? 'Unauthorized' : `Mock failure ${fault.status}`;
        res.writeHead(fault.status, headers)
          .end(JSON.stringify({ object: 'error', message, type: 'mock_error', code: String(fault.status) }));
        return;
      }
      if (fault.nocors) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      if (fault.html) {
        res.writeHead(200, { ...CORS, 'content-type': 'text/html' }).end('<html><body>Portail captif</body></html>');
        return;
      }
      if (fault.malformed) {
        res.writeHead(200, { ...CORS, 'content-type': 'application/json' }).end('{"data": [{"embedding": [0.1, ');
        return;
      }
      let request;
      try {
        request = JSON.parse(body);
      } catch {
        res.writeHead(400, { ...CORS, 'content-type': 'application/json' })
          .end(JSON.stringify({ object: 'error', message: 'Invalid JSON', type: 'invalid_request', code: null }));
        return;
      }
      if (url.pathname === '/v1/chat/completions') {
        const a = mockAnswer(request.messages ?? []);
        state.log[state.log.length - 1].answer = a;
        const content = /morceaux/i.test(a.question)
          ? [{ type: 'text', text: a.text.slice(0, 10) }, { type: 'reference', reference_ids: [0] }, { type: 'text', text: a.text.slice(10) }]
          : a.text;
        const promptTokens = Math.ceil(Buffer.byteLength(body) / 4);
        const completionTokens = Math.ceil(Buffer.byteLength(a.text) / 4);
        res.writeHead(200, { ...CORS, 'content-type': 'application/json' }).end(JSON.stringify({
          id: 'mock', object: 'chat.completion', model: request.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
        }));
        return;
      }
      const inputs = request.input ?? [];
      const tokens = inputs.reduce((n, t) => n + Math.ceil(Buffer.byteLength(t) / 4), 0);
      res.writeHead(200, { ...CORS, 'content-type': 'application/json' }).end(JSON.stringify({
        id: 'mock', object: 'list', model: 'mistral-embed',
        data: inputs.map((t, index) => ({ object: 'embedding', embedding: fakeEmbed(t), index })),
        usage: { prompt_tokens: tokens, total_tokens: tokens, completion_tokens: 0 },
      }));
    });
  });
  await new Promise((ok) => server.listen(port, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${port}`;
  const post = (path, data) => fetch(origin + path, { method: 'POST', body: data ? JSON.stringify(data) : '' });
  return {
    origin,
    faults: (list) => post('/__faults', list),
    reset: () => post('/__reset'),
    log: async () => (await fetch(origin + '/__log')).json(),
    close: () => {
      for (const res of state.hung) res.destroy();
      server.closeAllConnections?.();
      return new Promise((ok) => server.close(ok));
    },
  };
}
