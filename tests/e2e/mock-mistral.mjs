// A local stand-in for Mistral's API, for tests without a key, built from Mistral's own
// documentation and recorded responses, not from what our client expects:
// - request shapes: the OpenAPI spec (mistralai/platform-docs-public, openapi.yaml):
//   EmbeddingRequest and ChatCompletionRequest are `additionalProperties: false` (an unknown
//   field gets a 422 `extra_forbidden`), with the fields listed in EMBEDDING_FIELDS / CHAT_FIELDS;
// - limits: at most 512 inputs, 8,192 tokens per input, 16,384 tokens per request (400,
//   "Too many tokens overall, split into more batches.", code 3210);
// - CORS: a real response carries `access-control-allow-origin: *` and NO
//   `access-control-expose-headers`, so a page cannot read `Retry-After` (fault `expose` adds it);
// - error bodies, as recorded in public bug reports and the official clients' tests: 401
//   {"detail":"Unauthorized"} (or {"message":"Unauthorized","request_id":…}), 429
//   {"object":"error","message":"Rate limit exceeded","type":"rate_limited","code":"1300"} (or
//   {"message":"Requests rate limit exceeded"}), 422 {"object":"error","message":{"detail":[…]},
//   "type":"invalid_request_error",…}; a gateway's 502/504 is an HTML page without CORS headers;
// - chat replies: `content` a string, a list of chunks (a `thinking` chunk before the text with
//   reasoning models) or null; `finish_reason` stop, length or model_length.
// Tokens are counted as ceil(UTF-8 bytes / 4), a typical ratio for French text.
// NOT backed by a recorded response, and chosen so that our client cannot depend on them (it reads
// only the status of these): the 5xx JSON body, the 403 body (the 401's second shape, reused), the
// text and code of the "too many inputs" and "input too long" 400s (the limits are documented, the
// exact messages are not), the 400 for a body that is not JSON, the 404 body, and the model list
// of GET /v1/models.
//
// It answers POST /v1/embeddings with seed 001's fake embedder (MD5-hashed bag of words, 1024
// dims, norm 1) under the model name mistral-embed, GET /v1/models with a short list, and POST
// /v1/chat/completions deterministically (it cites the first fiche sent that shares a word of five
// letters or more with the question, else answers « pas dans le catalogue »; a question containing
// "invente" gets an invented citation, one containing "morceaux" an answer as a list of chunks).
// The judge's and the reranker's requests are told apart by their instructions (the system
// message, src/answer/judge.rs and src/answer/rerank.rs). Their replies' TEXT is not backed by a
// recorded reply (no key here; what a model writes is not documented): it is a rule chosen so
// that the tests reach every path of our strict parsers, inside the documented chat response
// shape above. The judge says OUI when every fiche the answer cites was among the fiches it read
// (a refusal included), else NON. The reranker marks each fiche it read, in order, « ID : n »
// with n = 3 × the question's words of five letters or more found in the fiche, at most 10.
// It fails on demand: POST /__faults with a JSON list of faults, each used by one API request in
// order ({} for none):
//   {"status": 401|403|429|500|502|503|504, "retryAfter": "2", "body": {…}}  an error (the
//                         real body of that status unless `body` is given)
//   {"html": true}        with a status: an HTML gateway page without CORS headers; alone: a 200
//                         whose body is an HTML page (a captive portal)
//   {"nocors": true}      answers (with `status` if given) without CORS headers: unreadable
//   {"expose": true}      adds `access-control-expose-headers: retry-after` (the real API does not)
//   {"malformed": true}   a 200 with truncated JSON
//   {"hang": true}        never answers (until the client gives up)
//   {"delayMs": 1500}     answers normally, late
//   {"finish": "length"}  a chat answer cut after a few words, finish_reason "length"
//   {"nullContent": true} a chat answer with content null, finish_reason "model_length"
//   {"thinking": true}    a chat answer whose content starts with a thinking chunk
//   {"verdict": "Peut-être"}  the judge's reply replaced by this text (malformed output)
//   {"omit": true}        the reranker leaves out the last fiche it read
//   {"invent": true}      the reranker adds a fiche it was not sent, AR-9999 : 10
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

const JUDGE = 'Tu vérifies la réponse';
const RERANK = 'Tu aides un vendeur';

/** The fiches and question of a request's user message (the layout of src/answer.rs). */
function readUser(messages) {
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  const at = user.lastIndexOf('\nQuestion : ');
  const question = at < 0 ? '' : user.slice(at + '\nQuestion : '.length).split('\n\nRéponse : ')[0].trim();
  const answerAt = user.lastIndexOf('\n\nRéponse : ');
  const answer = answerAt < 0 ? '' : user.slice(answerAt + '\n\nRéponse : '.length);
  const fiches = [...user.slice(0, Math.max(at, 0)).matchAll(/^\[([^\]\n]+)\] (.*)\n(.*)$/gm)]
    .map((m) => ({ id: m[1], nom: m[2], texte: m[3] }));
  return { question, answer, fiches };
}

/** The mock judge's verdict: OUI when every id the answer cites is among the fiches it read. */
export function mockVerdict(messages) {
  const { answer, fiches } = readUser(messages);
  const ids = new Set(fiches.map((f) => f.id));
  const cited = [...answer.matchAll(/\[([^\]]+)\]/g)].flatMap((m) => m[1].split(/[,;]/).map((x) => x.trim()));
  return cited.every((c) => ids.has(c)) ? 'OUI' : 'NON';
}

/** The mock reranker's marks: 3 per question word of five letters or more in the fiche, at most 10. */
export function mockMarks(messages, fault = {}) {
  const { question, fiches } = readUser(messages);
  const words = question.toLowerCase().match(/[a-zà-ÿœ]{5,}/g) ?? [];
  const read = fault.omit ? fiches.slice(0, -1) : fiches;
  const lines = read.map((f) => {
    const text = ` ${f.nom} ${f.texte} `.toLowerCase();
    const hits = words.filter((w) => new RegExp(`[^a-zà-ÿœ]${w}[^a-zà-ÿœ]`).test(text)).length;
    return `${f.id} : ${Math.min(10, 3 * hits)}`;
  });
  if (fault.invent) lines.push('AR-9999 : 10');
  return lines.join('\n');
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
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type',
};

export const EMBEDDING_FIELDS = ['model', 'input', 'output_dimension', 'output_dtype', 'encoding_format', 'metadata'];
export const CHAT_FIELDS = ['model', 'messages', 'temperature', 'top_p', 'max_tokens', 'stream', 'stop',
  'random_seed', 'metadata', 'response_format', 'tools', 'tool_choice', 'presence_penalty',
  'frequency_penalty', 'n', 'prediction', 'parallel_tool_calls', 'prompt_mode', 'safe_prompt',
  'guardrails', 'prompt_cache_key', 'reasoning_effort'];
export const LIMITS = { inputs: 512, tokensPerInput: 8192, tokensPerRequest: 16384 };

/** The mock's token count: ceil(UTF-8 bytes / 4). */
export const tokens = (text) => Math.ceil(Buffer.byteLength(text) / 4);

/** The real body of an error status. */
function errorBody(status) {
  switch (status) {
    case 401: return { detail: 'Unauthorized' };
    case 403: return { message: 'Forbidden', request_id: 'mock-403' };
    case 429: return { object: 'error', message: 'Rate limit exceeded', type: 'rate_limited', param: null, code: '1300' };
    default: return { object: 'error', message: 'Service unavailable', type: 'internal_server_error', param: null, code: null };
  }
}

const gatewayPage = (status) => `<html><head><title>${status} ${status === 504 ? 'Gateway Time-out' : 'Bad Gateway'}</title></head><body><center><h1>${status}</h1></center><hr><center>cloudflare</center></body></html>`;

/** A 400 with the real body shape: {"object":"error","message":…,"type":…,"param":null,"code":…}. */
const invalid = (message, code) => ({ object: 'error', message, type: 'invalid_request_message_error', param: null, code });

/** A 422 for each field the schema does not allow (additionalProperties: false). */
function extraForbidden(request, allowed) {
  const extra = Object.keys(request).filter((k) => !allowed.includes(k));
  if (extra.length === 0) return null;
  return {
    object: 'error',
    message: { detail: extra.map((k) => ({ type: 'extra_forbidden', loc: ['body', k], msg: 'Extra inputs are not permitted', input: request[k] })) },
    type: 'invalid_request_error', param: null, code: null,
  };
}

/** Why an embeddings request breaks the documented limits, if it does. */
function overLimits(inputs) {
  if (inputs.length > LIMITS.inputs) return invalid(`Too many inputs: ${inputs.length} > ${LIMITS.inputs}`, '3220');
  const i = inputs.findIndex((t) => tokens(t) > LIMITS.tokensPerInput);
  if (i >= 0) return invalid(`Input ${i} is too long: ${tokens(inputs[i])} tokens > ${LIMITS.tokensPerInput}`, '3210');
  const total = inputs.reduce((n, t) => n + tokens(t), 0);
  if (total > LIMITS.tokensPerRequest) return invalid('Too many tokens overall, split into more batches.', '3210');
  return null;
}

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
      // This request's own entry: a late answer (a delay, a test already over and the log reset)
      // is noted on it, never on whatever entry is last.
      const entry = {
        method: req.method,
        path: url.pathname,
        search: url.search,
        headers: req.headers,
        body: req.method === 'POST' ? body : undefined,
      };
      state.log.push(entry);
      if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS).end();
        return;
      }
      const json = (status, data, headers = CORS) =>
        res.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(data));
      const routes = { '/v1/embeddings': 'POST', '/v1/chat/completions': 'POST', '/v1/models': 'GET' };
      if (routes[url.pathname] !== req.method) {
        json(404, { detail: 'Not Found' });
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
      const cors = fault.nocors ? {} : fault.expose ? { ...CORS, 'access-control-expose-headers': 'retry-after' } : CORS;
      if (fault.status) {
        const headers = { ...cors };
        if (fault.retryAfter) headers['retry-after'] = fault.retryAfter;
        if (fault.html) {
          // A gateway's page: HTML, and no CORS headers (it never reached the API).
          res.writeHead(fault.status, { 'content-type': 'text/html', ...(fault.retryAfter ? { 'retry-after': fault.retryAfter } : {}) })
            .end(gatewayPage(fault.status));
          return;
        }
        json(fault.status, fault.body ?? errorBody(fault.status), headers);
        return;
      }
      if (url.pathname === '/v1/models') {
        json(200, { object: 'list', data: ['mistral-embed', 'mistral-small-latest', 'mistral-large-latest'].map((id) => ({ id, object: 'model', owned_by: 'mistralai' })) }, cors);
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
        json(400, invalid('Invalid JSON body', null));
        return;
      }
      const chat = url.pathname === '/v1/chat/completions';
      const extra = extraForbidden(request, chat ? CHAT_FIELDS : EMBEDDING_FIELDS);
      if (extra) {
        json(422, extra);
        return;
      }
      if (chat) {
        const system = (request.messages ?? []).find((m) => m.role === 'system')?.content ?? '';
        const role = system.startsWith(JUDGE) ? 'judge' : system.startsWith(RERANK) ? 'rerank' : 'answer';
        const a = role === 'judge' ? { question: '', text: fault.verdict ?? mockVerdict(request.messages) }
          : role === 'rerank' ? { question: '', text: mockMarks(request.messages, fault) }
            : mockAnswer(request.messages ?? []);
        entry.answer = a;
        entry.role = role;
        let text = a.text;
        let finish = 'stop';
        if (fault.finish) {
          text = text.split(' ').slice(0, 3).join(' ');
          finish = fault.finish;
        }
        let content = /morceaux/i.test(a.question)
          ? [{ type: 'text', text: text.slice(0, 10) }, { type: 'reference', reference_ids: [0] }, { type: 'text', text: text.slice(10) }]
          : text;
        if (fault.thinking) {
          content = [{ type: 'thinking', thinking: [{ type: 'text', text: 'Je lis les fiches envoyées.' }] }, { type: 'text', text }];
        }
        if (fault.nullContent) {
          content = null;
          finish = 'model_length';
          text = '';
        }
        const promptTokens = tokens(body);
        const completionTokens = tokens(text);
        json(200, {
          id: 'mock', object: 'chat.completion', model: request.model, created: 0,
          choices: [{ index: 0, message: { role: 'assistant', content, tool_calls: null }, finish_reason: finish }],
          usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
        }, cors);
        return;
      }
      const inputs = Array.isArray(request.input) ? request.input : [request.input ?? ''];
      const limit = overLimits(inputs);
      if (limit) {
        json(400, limit, cors);
        return;
      }
      const total = inputs.reduce((n, t) => n + tokens(t), 0);
      json(200, {
        id: 'mock', object: 'list', model: 'mistral-embed',
        data: inputs.map((t, index) => ({ object: 'embedding', embedding: fakeEmbed(t), index })),
        usage: { prompt_tokens: total, total_tokens: total, completion_tokens: 0 },
      }, cors);
    });
  });
  // A port already taken fails here, with its cause, on every test of the file (not as a pending
  // promise after the event loop has ended).
  await new Promise((ok, ko) => {
    server.once('error', (e) => ko(new Error(e.code === 'EADDRINUSE'
      ? `the mock API cannot listen on 127.0.0.1:${port}: the port is taken (EADDRINUSE); find the holder with ss -ltnp 'sport = :${port}' and stop it`
      : `the mock API cannot listen on 127.0.0.1:${port}: ${e.message}`)));
    server.listen(port, '127.0.0.1', ok);
  });
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
