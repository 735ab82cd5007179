/**
 * A local stand-in for Anthropic's Messages API, so the real Claude Code CLI can run in tests with no network and no
 * key: node:http on 127.0.0.1 at a random port, `POST /v1/messages` answered as a streaming SSE message whose content
 * a script decides (text and tool calls), every request recorded. The wire format is the documented one
 * (docs.anthropic.com/en/api/messages-streaming): message_start, content_block_start/delta/stop per block,
 * message_delta with the stop_reason, message_stop.
 *
 * The script sees the request and the number of assistant turns already in its `messages` (the conversation carries
 * its own state, so side requests such as a title or a summary, which come without the agent's tools, do not shift
 * the script: they get a short text answer).
 */
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ScriptedToolCall {
  name: string
  input: Record<string, unknown>
}

export interface ScriptedTurn {
  text?: string
  tools?: ScriptedToolCall[]
}

export interface RecordedRequest {
  path: string
  body: MessagesRequest
}

export interface MessagesRequest {
  model?: string
  system?: unknown
  messages?: { role: string; content: unknown }[]
  tools?: { name: string }[]
  stream?: boolean
  [key: string]: unknown
}

export interface ModelStandIn {
  url: string
  requests: RecordedRequest[]
  /** The requests that carried the agent's tools (the main conversation), in arrival order. */
  agentRequests(): MessagesRequest[]
  close(): Promise<void>
}

const MAX_BODY = 32 * 1024 * 1024

/** Every text of a request (system, messages, tool results) joined: what the model was shown. */
export function requestText(req: MessagesRequest): string {
  const out: string[] = []
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v)
    else if (Array.isArray(v)) v.forEach(walk)
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) if (k !== 'tools' && k !== 'input_schema') walk(x)
  }
  walk(req.system)
  walk(req.messages)
  walk(req['instructions'])
  walk(req['input'])
  walk(req['systemInstruction'])
  walk(req['contents'])
  return out.join('\n')
}

const isAgentRequest = (b: MessagesRequest) => Array.isArray(b.tools) && b.tools.some((t) => t.name === 'Bash')

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
}

let ids = 0

function streamTurn(res: ServerResponse, model: string, turn: ScriptedTurn): void {
  const id = `msg_standin_${++ids}`
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` })
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  })
  let index = 0
  if (turn.text !== undefined) {
    sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
    sse(res, 'content_block_delta', {
      type: 'content_block_delta',
      index,
      delta: { type: 'text_delta', text: turn.text },
    })
    sse(res, 'content_block_stop', { type: 'content_block_stop', index })
    index++
  }
  for (const call of turn.tools ?? []) {
    const toolId = `toolu_standin_${++ids}`
    sse(res, 'content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: toolId, name: call.name, input: {} },
    })
    sse(res, 'content_block_delta', {
      type: 'content_block_delta',
      index,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) },
    })
    sse(res, 'content_block_stop', { type: 'content_block_stop', index })
    index++
  }
  const stop = turn.tools?.length ? 'tool_use' : 'end_turn'
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: 5 },
  })
  sse(res, 'message_stop', { type: 'message_stop' })
  res.end()
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_BODY) req.destroy(new Error('request body too large'))
      else chunks.push(c)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

/**
 * Start the stand-in. `script(step, request)` gives the turn to answer the agent's `step`-th request (0-based: the
 * number of assistant messages already in the conversation); past the script's end, answer with `undefined` to end
 * the turn with a short text.
 */
/** Listen on a random loopback port; the stand-in's address, its recorded requests and the agent's own among them. */
async function listen(
  server: Server,
  requests: RecordedRequest[],
  isAgentRequest: (r: RecordedRequest) => boolean,
): Promise<ModelStandIn> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    agentRequests: () => requests.filter(isAgentRequest).map((r) => r.body),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export async function startModelStandIn(
  script: (step: number, req: MessagesRequest) => ScriptedTurn | undefined,
): Promise<ModelStandIn> {
  const requests: RecordedRequest[] = []
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0] as string
      const text = await readBody(req)
      let body: MessagesRequest = {}
      try {
        body = text ? (JSON.parse(text) as MessagesRequest) : {}
      } catch {
        /* recorded as an empty body */
      }
      requests.push({ path, body })
      if (req.method === 'POST' && path.endsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 100 }))
        return
      }
      if (req.method !== 'POST' || !path.endsWith('/v1/messages')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'stand-in' } }))
        return
      }
      const model = typeof body.model === 'string' ? body.model : 'claude-stand-in'
      const step = (body.messages ?? []).filter((m) => m.role === 'assistant').length
      const turn = isAgentRequest(body) ? (script(step, body) ?? { text: 'Done.' }) : { text: 'Stand-in title' }
      if (body.stream === false) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            id: `msg_standin_${++ids}`,
            type: 'message',
            role: 'assistant',
            model,
            content: [{ type: 'text', text: turn.text ?? 'ok' }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 5 },
          }),
        )
        return
      }
      streamTurn(res, model, turn)
    })().catch(() => res.destroy())
  })
  return listen(server, requests, (r) => r.path.endsWith('/v1/messages') && isAgentRequest(r.body))
}

/** What the OpenAI Responses stand-in answers: a shell command to run (Codex's `exec_command`), or the final text. */
export interface ResponsesTurn {
  command?: string
  text?: string
}

/**
 * A stand-in for OpenAI's Responses API (`POST /v1/responses`, streamed: response.created, one
 * response.output_item.done per item, response.completed), for Codex CLI. The step is the number of function calls
 * already in the request's `input`; requests without Codex's shell tool get a short text.
 */
export async function startResponsesStandIn(
  script: (step: number, req: MessagesRequest) => ResponsesTurn | undefined,
): Promise<ModelStandIn> {
  const requests: RecordedRequest[] = []
  const isAgent = (b: MessagesRequest) =>
    Array.isArray(b.tools) && b.tools.some((t) => t.name === 'exec_command' || t.name === 'shell')
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0] as string
      const text = await readBody(req)
      let body: MessagesRequest = {}
      try {
        body = text ? (JSON.parse(text) as MessagesRequest) : {}
      } catch {
        /* recorded as an empty body */
      }
      requests.push({ path, body })
      if (req.method !== 'POST' || !path.endsWith('/responses')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'stand-in' } }))
        return
      }
      const input = Array.isArray(body['input']) ? (body['input'] as { type?: string }[]) : []
      const step = input.filter((i) => i.type === 'function_call').length
      const turn = isAgent(body) ? (script(step, body) ?? { text: 'Done.' }) : { text: 'Stand-in title' }
      const id = `resp_standin_${++ids}`
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      const event = (type: string, data: Record<string, unknown>) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
      event('response.created', { response: { id } })
      const item =
        turn.command !== undefined
          ? {
              type: 'function_call',
              id: `fc_standin_${ids}`,
              call_id: `call_standin_${ids}`,
              name: 'exec_command',
              arguments: JSON.stringify({ cmd: turn.command }),
            }
          : {
              type: 'message',
              role: 'assistant',
              id: `msg_standin_${ids}`,
              content: [{ type: 'output_text', text: turn.text ?? 'Done.' }],
            }
      event('response.output_item.done', { output_index: 0, item })
      event('response.completed', {
        response: {
          id,
          usage: {
            input_tokens: 10,
            input_tokens_details: null,
            output_tokens: 5,
            output_tokens_details: null,
            total_tokens: 15,
          },
        },
      })
      res.end()
    })().catch(() => res.destroy())
  })
  return listen(server, requests, (r) => r.path.endsWith('/responses') && isAgent(r.body))
}

/**
 * A stand-in for the Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`, and `:generateContent`
 * for Gemini CLI's side requests), for Gemini CLI with GOOGLE_GEMINI_BASE_URL. The step is the number of function
 * responses already in the request's `contents`; requests without tools get a small JSON text.
 */
export async function startGeminiStandIn(
  script: (step: number, req: MessagesRequest) => ResponsesTurn | undefined,
): Promise<ModelStandIn> {
  const requests: RecordedRequest[] = []
  const isAgent = (b: MessagesRequest) =>
    Array.isArray(b.tools) && JSON.stringify(b.tools).includes('run_shell_command')
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0] as string
      const text = await readBody(req)
      let body: MessagesRequest = {}
      try {
        body = text ? (JSON.parse(text) as MessagesRequest) : {}
      } catch {
        /* recorded as an empty body */
      }
      requests.push({ path, body })
      if (path.endsWith(':countTokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: 10 }))
        return
      }
      const step = JSON.stringify(body['contents'] ?? []).split('"functionResponse"').length - 1
      const turn = isAgent(body)
        ? (script(step, body) ?? { text: 'Done.' })
        : { text: '{"reasoning": "stand-in", "next_speaker": "user"}' }
      const part =
        turn.command !== undefined
          ? { functionCall: { name: 'run_shell_command', args: { command: turn.command } } }
          : { text: turn.text ?? 'Done.' }
      const chunk = {
        candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      }
      if (path.endsWith(':streamGenerateContent')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`)
      } else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chunk))
    })().catch(() => res.destroy())
  })
  return listen(server, requests, (r) => r.path.endsWith(':streamGenerateContent') && isAgent(r.body))
}
