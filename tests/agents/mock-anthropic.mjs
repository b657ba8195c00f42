// mock-anthropic.mjs: a scripted stand-in for the Anthropic Messages API on
// loopback, for driving the real Claude Code binary in tests/agents/.
//
//	node mock-anthropic.mjs SCRIPT LOG PORTFILE
//
// Listens on 127.0.0.1 (a port the kernel picks, written to PORTFILE once it
// listens) and answers POST /v1/messages, streamed (SSE) or not. SCRIPT is a
// JSON array of turns, read again at every request (a test may rewrite it
// between sessions):
//
//	{"tool": "Bash", "input": {"command": "ls"}}	a tool_use block
//	{"text": "done"}				final text, end_turn
//
// The turn a request gets is the number of assistant messages already in its
// conversation, so a retried request gets the same turn again, and the ids
// are stable: the tool_use of turn N has the id "toolu_N". Requests that
// offer no tools (titles, summaries and other side requests) get a short text
// and do not count. Past the end of the script the answer is "script ended".
// A turn whose tool the request does not offer is answered with a text that
// says so (a test sees it in the log and in Claude Code's result).
//
// Every request is appended to LOG as one JSON line: {"path", "body"}.
// tests/agents/lib.sh reads the tool results out of it with jq.
import { createServer } from "node:http";
import { appendFileSync, readFileSync, writeFileSync, renameSync } from "node:fs";

const [scriptFile, logFile, portFile] = process.argv.slice(2);
if (!portFile) {
	console.error("usage: mock-anthropic.mjs SCRIPT LOG PORTFILE");
	process.exit(2);
}

// The turn to answer a conversation with, or null for a side request.
function pickTurn(body) {
	const tools = Array.isArray(body.tools) ? body.tools : [];
	if (tools.length === 0)
		return null;
	const messages = Array.isArray(body.messages) ? body.messages : [];
	const n = messages.filter((m) => m.role === "assistant").length;
	let script;
	try {
		script = JSON.parse(readFileSync(scriptFile, "utf8"));
	} catch (e) {
		return { n, turn: { text: `mock: cannot read the script: ${e.message}` } };
	}
	if (n >= script.length)
		return { n, turn: { text: "script ended" } };
	const turn = script[n];
	if (turn.tool && !tools.some((t) => t.name === turn.tool)) {
		const names = tools.map((t) => t.name).join(", ");
		return { n, turn: { text: `mock: tool ${turn.tool} is not offered (${names})` } };
	}
	return { n, turn };
}

// The assistant message's content blocks and stop reason for a turn.
function answer(picked) {
	if (picked === null)
		return { content: [{ type: "text", text: "ok" }], stop: "end_turn" };
	const { n, turn } = picked;
	if (turn.tool)
		return {
			content: [{ type: "tool_use", id: `toolu_${n}`, name: turn.tool,
			    input: turn.input ?? {} }],
			stop: "tool_use",
		};
	return { content: [{ type: "text", text: String(turn.text ?? "") }],
	    stop: "end_turn" };
}

function usage() {
	return { input_tokens: 10, output_tokens: 5,
	    cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

let serial = 0;

// One SSE event.
function sse(res, type, data) {
	res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

// The message as Messages API stream events.
function stream(res, model, id, a) {
	res.writeHead(200, { "content-type": "text/event-stream",
	    "cache-control": "no-cache", "request-id": `req_${id}` });
	sse(res, "message_start", { message: { id, type: "message",
	    role: "assistant", model, content: [], stop_reason: null,
	    stop_sequence: null, usage: { ...usage(), output_tokens: 1 } } });
	a.content.forEach((block, index) => {
		if (block.type === "text") {
			sse(res, "content_block_start", { index,
			    content_block: { type: "text", text: "" } });
			sse(res, "content_block_delta", { index,
			    delta: { type: "text_delta", text: block.text } });
		} else {
			sse(res, "content_block_start", { index,
			    content_block: { type: "tool_use", id: block.id,
			    name: block.name, input: {} } });
			sse(res, "content_block_delta", { index,
			    delta: { type: "input_json_delta",
			    partial_json: JSON.stringify(block.input) } });
		}
		sse(res, "content_block_stop", { index });
	});
	sse(res, "message_delta", { delta: { stop_reason: a.stop,
	    stop_sequence: null }, usage: { output_tokens: 5 } });
	sse(res, "message_stop", {});
	res.end();
}

const server = createServer((req, res) => {
	const chunks = [];
	req.on("data", (c) => chunks.push(c));
	req.on("end", () => {
		const raw = Buffer.concat(chunks).toString("utf8");
		let body = null;
		try {
			body = raw ? JSON.parse(raw) : null;
		} catch {
			body = { unparsed: raw.slice(0, 4096) };
		}
		const path = (req.url ?? "").replace(/\?.*/, "");
		appendFileSync(logFile, JSON.stringify({ method: req.method, path,
		    body }) + "\n");
		if (req.method === "POST" && path === "/v1/messages/count_tokens") {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify({ input_tokens: 10 }));
			return;
		}
		if (req.method !== "POST" || path !== "/v1/messages" || !body) {
			res.writeHead(404, { "content-type": "application/json" });
			res.end(JSON.stringify({ type: "error", error: {
			    type: "not_found_error", message: "not in the mock" } }));
			return;
		}
		const id = `msg_mock_${++serial}`;
		const model = body.model ?? "claude-mock";
		const a = answer(pickTurn(body));
		if (body.stream) {
			stream(res, model, id, a);
			return;
		}
		res.writeHead(200, { "content-type": "application/json" });
		res.end(JSON.stringify({ id, type: "message", role: "assistant",
		    model, content: a.content, stop_reason: a.stop,
		    stop_sequence: null, usage: usage() }));
	});
});

server.listen(0, "127.0.0.1", () => {
	// Written whole, then renamed: the test never reads half a number.
	writeFileSync(`${portFile}.tmp`, String(server.address().port));
	renameSync(`${portFile}.tmp`, portFile);
});
// The test ends the mock with SIGTERM.
process.on("SIGTERM", () => process.exit(0));
