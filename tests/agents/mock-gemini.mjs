// mock-gemini.mjs: a scripted stand-in for the Gemini API (generateContent,
// streamGenerateContent, countTokens) on loopback, for driving the real
// Gemini CLI in tests/agents/.
//
//	node mock-gemini.mjs SCRIPT LOG PORTFILE
//
// Listens on 127.0.0.1 (a port the kernel picks, written to PORTFILE once it
// listens) and answers POST /v1beta/models/MODEL:generateContent and
// :streamGenerateContent (SSE with ?alt=sse, else a JSON array). SCRIPT is a
// JSON array of turns, read again at every request (a test may rewrite it
// between sessions):
//
//	{"tool": "run", "input": {"command": "ls"}}	a functionCall part
//	{"text": "done"}				final text, STOP
//
// The turn a request gets is the number of "model" entries already in its
// conversation (contents), so a retried request gets the same turn again, and
// the ids are stable: the functionCall of turn N has the id "call_N". A turn
// whose function the request does not offer (the CLI names an MCP server's
// tools mcp_SERVER_TOOL) is answered with a text that says so. Requests that offer no functions (the CLI's side requests: routing,
// next-speaker and loop checks, titles) get a short text, or JSON that fits
// the schema they ask for, and do not count. Past the end of the script the answer is "script ended".
//
// Every request is appended to LOG as one JSON line: {"method", "path",
// "body"}. tests/agents/lib.sh reads the function responses out of it with jq.
import { createServer } from "node:http";
import { appendFileSync, readFileSync, writeFileSync, renameSync } from "node:fs";

const [scriptFile, logFile, portFile] = process.argv.slice(2);
if (!portFile) {
	console.error("usage: mock-gemini.mjs SCRIPT LOG PORTFILE");
	process.exit(2);
}

// The names of the functions a request offers.
function offered(body) {
	const tools = Array.isArray(body.tools) ? body.tools : [];
	return tools.flatMap((t) => Array.isArray(t.functionDeclarations)
	    ? t.functionDeclarations.map((f) => f.name) : []);
}

// The turn to answer a conversation with, or null for a side request.
function pickTurn(body) {
	const names = offered(body);
	if (names.length === 0)
		return null;
	const contents = Array.isArray(body.contents) ? body.contents : [];
	const n = contents.filter((c) => c.role === "model").length;
	let script;
	try {
		script = JSON.parse(readFileSync(scriptFile, "utf8"));
	} catch (e) {
		return { n, turn: { text: `mock: cannot read the script: ${e.message}` } };
	}
	if (n >= script.length)
		return { n, turn: { text: "script ended" } };
	const turn = script[n];
	if (turn.tool && !names.includes(turn.tool))
		return { n, turn: { text: `mock: tool ${turn.tool} is not offered (${names.join(", ")})` } };
	return { n, turn };
}

// A value that fits a JSON schema (the CLI's side requests ask for JSON:
// the model router's complexity score, the next-speaker check): the first
// enum value, except that the next speaker is always the user.
function fit(schema, name) {
	if (!schema || typeof schema !== "object")
		return null;
	if (name === "next_speaker")
		return "user";
	if (Array.isArray(schema.enum) && schema.enum.length > 0)
		return schema.enum[0];
	switch (String(schema.type ?? "").toLowerCase()) {
	case "object": {
		const out = {};
		for (const [k, v] of Object.entries(schema.properties ?? {}))
			out[k] = fit(v, k);
		return out;
	}
	case "array": return [];
	case "integer": case "number": return 1;
	case "boolean": return false;
	default: return "mock";
	}
}

// A side request's answer: JSON when the request asks for JSON, else a
// short text.
function side(body) {
	const config = body.generationConfig ?? {};
	if (config.responseMimeType === "application/json")
		return JSON.stringify(fit(config.responseJsonSchema ??
		    config.responseSchema ?? { type: "object" }, ""));
	return "ok";
}

// The candidate's parts for a turn.
function answer(body, picked) {
	if (picked === null)
		return [{ text: side(body) }];
	const { n, turn } = picked;
	if (turn.tool)
		return [{ functionCall: { id: `call_${n}`, name: turn.tool,
		    args: turn.input ?? {} } }];
	return [{ text: String(turn.text ?? "") }];
}

function response(model, parts) {
	return {
		candidates: [{ content: { role: "model", parts },
		    finishReason: "STOP", index: 0 }],
		usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5,
		    totalTokenCount: 15 },
		modelVersion: model,
	};
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
		const url = new URL(req.url ?? "/", "http://mock");
		const path = url.pathname;
		appendFileSync(logFile, JSON.stringify({ method: req.method, path,
		    body }) + "\n");
		const m = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(\w+)$/.exec(path);
		if (req.method === "POST" && m && m[2] === "countTokens") {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify({ totalTokens: 10 }));
			return;
		}
		if (req.method !== "POST" || !m || !body ||
		    !["generateContent", "streamGenerateContent"].includes(m[2])) {
			res.writeHead(404, { "content-type": "application/json" });
			res.end(JSON.stringify({ error: { code: 404,
			    message: "not in the mock", status: "NOT_FOUND" } }));
			return;
		}
		const out = response(m[1], answer(body, pickTurn(body)));
		if (m[2] === "generateContent") {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify(out));
		} else if (url.searchParams.get("alt") === "sse") {
			res.writeHead(200, { "content-type": "text/event-stream",
			    "cache-control": "no-cache" });
			res.end(`data: ${JSON.stringify(out)}\r\n\r\n`);
		} else {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify([out]));
		}
	});
});

server.listen(0, "127.0.0.1", () => {
	// Written whole, then renamed: the test never reads half a number.
	writeFileSync(`${portFile}.tmp`, String(server.address().port));
	renameSync(`${portFile}.tmp`, portFile);
});
// The test ends the mock with SIGTERM.
process.on("SIGTERM", () => process.exit(0));
