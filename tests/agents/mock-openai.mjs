// mock-openai.mjs: a scripted stand-in for the OpenAI Responses API on
// loopback, for driving the real Codex CLI in tests/agents/.
//
//	node mock-openai.mjs SCRIPT LOG PORTFILE
//
// Listens on 127.0.0.1 (a port the kernel picks, written to PORTFILE once it
// listens) and answers POST /v1/responses with a Server-Sent Events stream.
// SCRIPT is a JSON array of turns, read again at every request:
//
//	{"tool": "mcp__bwgate__run", "arguments": {"command": "ls"}}
//		a function_call item (a function of a namespace, as Codex
//		offers an MCP server's tools, is named NAMESPACE__NAME)
//	{"text": "done"}			an assistant message
//
// The turn a request gets is the number of model outputs (function calls
// and assistant messages) already in its input, so a retried request gets
// the same turn again; the call of turn N has the call_id "call_N". Requests
// that offer no tools get a short text and do not count. Past the end of the
// script the answer is "script ended"; a turn whose tool the request does
// not offer is answered with a text that says so.
//
// Every request is appended to LOG as one JSON line: {"method", "path",
// "body"}. tests/agents/lib.sh reads the tool outputs out of it with jq.
import { createServer } from "node:http";
import { appendFileSync, readFileSync, writeFileSync, renameSync } from "node:fs";

const [scriptFile, logFile, portFile] = process.argv.slice(2);
if (!portFile) {
	console.error("usage: mock-openai.mjs SCRIPT LOG PORTFILE");
	process.exit(2);
}

// The tools a request offers, by the name a script calls them:
// {name: {name, namespace}}. A function of a namespace (Codex groups each
// MCP server's tools in one, "mcp__bwgate") is called NAMESPACE__NAME.
function toolTable(tools) {
	const table = {};
	for (const t of tools) {
		if (t.type === "namespace" && Array.isArray(t.tools)) {
			for (const u of t.tools)
				if (typeof u.name === "string")
					table[`${t.name}__${u.name}`] =
					    { name: u.name, namespace: t.name };
		} else if (typeof t.name === "string") {
			table[t.name] = { name: t.name };
		}
	}
	return table;
}

// The turn to answer a request with, or null for a side request.
function pickTurn(body) {
	const tools = Array.isArray(body.tools) ? body.tools : [];
	if (tools.length === 0)
		return null;
	const input = Array.isArray(body.input) ? body.input : [];
	const n = input.filter((i) => i.type === "function_call" ||
	    i.type === "custom_tool_call" ||
	    (i.type === "message" && i.role === "assistant")).length;
	let script;
	try {
		script = JSON.parse(readFileSync(scriptFile, "utf8"));
	} catch (e) {
		return { n, turn: { text: `mock: cannot read the script: ${e.message}` } };
	}
	if (n >= script.length)
		return { n, turn: { text: "script ended" } };
	const turn = script[n];
	const table = toolTable(tools);
	if (turn.tool && !table[turn.tool])
		return { n, turn: { text: `mock: tool ${turn.tool} is not offered (${Object.keys(table).join(", ")})` } };
	return { n, turn, call: table[turn.tool] };
}

// The output item for a turn.
function outputItem(picked) {
	if (picked !== null && picked.turn.tool)
		return { type: "function_call", id: `fc_${picked.n}`,
		    call_id: `call_${picked.n}`, ...picked.call,
		    arguments: JSON.stringify(picked.turn.arguments ?? {}) };
	const text = picked === null ? "ok" : String(picked.turn.text ?? "");
	return { type: "message", id: `msg_${picked?.n ?? "side"}`,
	    role: "assistant", status: "completed",
	    content: [{ type: "output_text", text, annotations: [] }] };
}

let serial = 0;

// One SSE event.
function sse(res, type, data) {
	res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
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
		if (req.method === "GET" && path === "/v1/models") {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify({ object: "list", data: [] }));
			return;
		}
		if (req.method !== "POST" || path !== "/v1/responses" || !body) {
			res.writeHead(404, { "content-type": "application/json" });
			res.end(JSON.stringify({ error: { message: "not in the mock",
			    type: "invalid_request_error" } }));
			return;
		}
		const id = `resp_mock_${++serial}`;
		const item = outputItem(pickTurn(body));
		const response = { id, object: "response", status: "in_progress",
		    model: body.model ?? "mock", output: [] };
		res.writeHead(200, { "content-type": "text/event-stream",
		    "cache-control": "no-cache" });
		sse(res, "response.created", { response });
		sse(res, "response.output_item.added", { output_index: 0,
		    item: { ...item, ...(item.type === "message" ?
		    { content: [], status: "in_progress" } : { arguments: "" }) } });
		if (item.type === "message")
			sse(res, "response.output_text.delta", { item_id: item.id,
			    output_index: 0, content_index: 0,
			    delta: item.content[0].text });
		sse(res, "response.output_item.done", { output_index: 0, item });
		sse(res, "response.completed", { response: { ...response,
		    status: "completed", output: [item],
		    usage: { input_tokens: 10, input_tokens_details:
		    { cached_tokens: 0 }, output_tokens: 5,
		    output_tokens_details: { reasoning_tokens: 0 },
		    total_tokens: 15 } } });
		res.end();
	});
});

server.listen(0, "127.0.0.1", () => {
	// Written whole, then renamed: the test never reads half a number.
	writeFileSync(`${portFile}.tmp`, String(server.address().port));
	renameSync(`${portFile}.tmp`, portFile);
});
// The test ends the mock with SIGTERM.
process.on("SIGTERM", () => process.exit(0));
