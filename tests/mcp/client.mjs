// client.mjs: the official MCP TypeScript SDK driving `bwgate mcp` over
// stdio, for tests/integration/mcp-sdk.sh. It prints one JSON line per step
// ({"step": NAME, ...}); the shell script makes the assertions.
//
//	node client.mjs auto|operator|beat
// Environment: BWGATE (the binary), MCP_PROJECT (the project directory).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";

const bwgate = process.env.BWGATE;
const project = process.env.MCP_PROJECT;
const mode = process.argv[2];

function out(step, data) {
	console.log(JSON.stringify({ step, ...data }));
}

// A call's result, or the error it failed with, as plain data.
async function call(name, args, options = {}) {
	try {
		const r = await client.callTool({ name, arguments: args },
		    undefined, options);
		return { isError: r.isError === true, text: r.content?.[0]?.text,
		    structured: r.structuredContent };
	} catch (e) {
		return { thrown: String(e.message ?? e), code: e.code };
	}
}

// Run a command that waits for the operator: once a progress notification
// names the request, the operator acts on it through the control socket.
async function runWithOperator(command, action, extra = [], tool = null,
    before = null) {
	const progress = [];
	let acted = false;
	const [name, args] = tool ?? ["run", { command }];
	const r = await call(name, args, {
		timeout: 60000,
		onprogress: (p) => {
			progress.push(p.message);
			const m = /^request (\d+) queued/.exec(p.message ?? "");
			if (m && !acted) {
				acted = true;
				if (before)
					before();
				execFileSync(bwgate, [action, ...extra, m[1]],
				    { stdio: "ignore" });
			}
		},
	});
	return { ...r, progress };
}

// Poll a condition until it holds or the deadline passes.
async function waitFor(cond, ms) {
	for (const end = Date.now() + ms; Date.now() < end;) {
		if (cond())
			return true;
		await new Promise((r) => setTimeout(r, 50));
	}
	return cond();
}

const transport = new StdioClientTransport({
	command: bwgate, args: ["mcp"], cwd: project,
	env: { ...process.env }, stderr: "inherit",
});
const client = new Client({ name: "bwgate-sdk-test", version: "1.0.0" });
await client.connect(transport);
out("server", { info: client.getServerVersion(),
    capabilities: client.getServerCapabilities() });

if (mode === "auto") {
	const tools = await client.listTools();
	out("tools", { names: tools.tools.map((t) => t.name),
	    schemas: tools.tools.every((t) => t.inputSchema?.type === "object") });
	await client.ping();
	out("ping", { ok: true });
	out("allowlisted", await call("run", { command: "echo hello-mcp" }));
	out("writer", await call("run", { command: "touch made-by-run" }));
	out("env", await call("run", { command: "printenv BWGATE_MCP_T",
	    env: { BWGATE_MCP_T: "from-the-agent" } }));
	out("ask-headless", await call("run",
	    { command: "sh -c 'echo hi > x'" }));
	out("deny-rule", await call("run", { command: "rm src/a.txt" }));
	out("cwd-outside", await call("run",
	    { command: "echo x", cwd: "../" }));
	out("read", await call("read_file", { path: "src/a.txt" }));
	out("read-lines", await call("read_file",
	    { path: "lines.txt", offset: 2, limit: 2 }));
	out("dotdot", await call("read_file", { path: "../secret" }));
	out("dotdot-inner", await call("read_file",
	    { path: "src/../../secret" }));
	out("absolute", await call("read_file", { path: "/etc/passwd" }));
	out("symlink-out", await call("read_file", { path: "out/secret" }));
	out("symlink-file", await call("read_file", { path: "passwd" }));
	out("write-through-link", await call("write_file",
	    { path: "out/planted", content: "x" }));
	out("write-git", await call("write_file",
	    { path: ".git/hooks/pre-commit", content: "x" }));
	out("write-deep-git", await call("write_file",
	    { path: "sub/mod/.git/config", content: "x" }));
	out("write-policy", await call("edit_file",
	    { path: ".bwgate.json", old_text: "{", new_text: "[" }));
	out("write", await call("write_file",
	    { path: "new/dir/file.txt", content: "one\ntwo\nthree\n" }));
	out("edit", await call("edit_file",
	    { path: "new/dir/file.txt", old_text: "two", new_text: "2" }));
	out("edit-ambiguous", await call("edit_file",
	    { path: "rep.txt", old_text: "a", new_text: "b" }));
	out("edit-all", await call("edit_file",
	    { path: "rep.txt", old_text: "a", new_text: "b",
	      replace_all: true }));
	out("write-attention", await call("write_file",
	    { path: ".github/workflows/ci.yml", content: "on: push\n" }));
	out("list", await call("list_directory", { path: "new" }));
	out("unknown-tool", await call("no_such_tool", {}));
	out("bad-args", await call("read_file", { path: 42 }));
} else if (mode === "operator") {
	out("approved", await runWithOperator("sh -c 'echo approved > ok.txt'",
	    "approve"));
	out("denied", await runWithOperator("sh -c 'echo no > no.txt'",
	    "deny", ["--note", "not today"]));
	// A write to CI configuration (danger, as for a command writing
	// it), approved by the operator.
	out("write-approved", await runWithOperator(null, "approve",
	    ["--danger"],
	    ["write_file", { path: ".github/workflows/ci.yml", content: "{}\n" }]));
	// An edit whose file changes before the operator approves: the
	// write must not clobber the newer content.
	out("edit-stale", await runWithOperator(null, "approve", [],
	    ["edit_file", { path: "stale.txt", old_text: "v1",
	      new_text: "mine" }], () => writeFileSync(project + "/stale.txt",
	      "v2 from someone else\n")));
	// Cancellation: approve a long command, then abort the call.
	const ac = new AbortController();
	let id = null;
	const r = await call("run", { command: "sleep 30" }, {
		signal: ac.signal, timeout: 60000,
		onprogress: (p) => {
			const m = /^request (\d+) queued/.exec(p.message ?? "");
			if (m) {
				id = m[1];
				execFileSync(bwgate, ["approve", id],
				    { stdio: "ignore" });
			}
			if (p.message === "running")
				ac.abort("test cancels");
		},
	});
	// The server reads the cancellation before the transport closes
	// (closing alone would end the request as "the agent disconnected").
	const ended = await waitFor(() => {
		const list = JSON.parse(execFileSync(bwgate, ["list", "--json"]));
		return list.some((q) => String(q.id) === id && q.state !== "running");
	}, 10000);
	out("cancelled", { ...r, id, ended });
} else if (mode === "beat") {
	// An operator slower than the client's timeout (16 s): the client
	// resets it on progress, so the steady notifications keep the call
	// alive; the operator approves at the second "still waiting" (~30 s).
	const progress = [];
	let beats = 0;
	const start = Date.now();
	const r = await call("run", { command: "echo waited-long" }, {
		timeout: 16000, resetTimeoutOnProgress: true,
		onprogress: (p) => {
			progress.push(p.message);
			const m = /^request (\d+) still waiting/.exec(p.message ?? "");
			if (m && ++beats === 2)
				execFileSync(bwgate, ["approve", m[1]],
				    { stdio: "ignore" });
		},
	});
	out("beat", { ...r, progress, seconds: (Date.now() - start) / 1000 });
}
await client.close();
out("closed", { ok: true });
