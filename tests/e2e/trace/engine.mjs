// SPDX-License-Identifier: GPL-2.0-or-later
// Parse a zt chrome-trace JSON with Chrome DevTools' own trace engine (npm
// @paulirish/trace_engine: the Performance panel's model, run under node)
// and print what it found, one item a line:
//   events N                       the trace events it took in
//   thread PID TID NAME entries=N  each thread the Renderer handler built (its entries:
//                                  the slices it placed on that thread's track)
//   gpu_thread PID TID NAME        the threads of GPU processes (process named "GPU N")
//   kernel NAME COUNT              the GPU threads' entries by name
//   cpu_entry NAME                 the names of the other threads' entries (unique, sorted)
//   flows N                        the flows the Flows handler joined (arrows)
//   flow_ok N                      those going from a "launch X" slice on a recorded
//                                  thread to an "X" slice on a GPU thread
//   complaints N                   console errors and warnings of the engine while it
//                                  parsed (unpaired events, say); then each as
//   complaint TEXT
// Exit 1 with "error: ..." when the engine throws or finds nothing.
// Usage: node engine.mjs TRACE.json
import fs from 'node:fs';
import { polyfillDOMRect } from '@paulirish/trace_engine/analyze-trace.mjs';
import * as Trace from '@paulirish/trace_engine';

function die(msg) {
	process.stderr.write(`error: ${msg}\n`);
	process.exit(1);
}

polyfillDOMRect();
// The engine calls URL.parse (Node 22, and 20.18 on): Debian 12's Node 18
// lacks it. The WHATWG definition: the URL, or null where new URL throws.
if (typeof URL.parse !== 'function')
	URL.parse = (url, base) => {
		try {
			return new URL(url, base);
		} catch {
			return null;
		}
	};
const json = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
if (!Array.isArray(json.traceEvents)) die('no traceEvents array');
const complaints = [];
const orig = { error: console.error, warn: console.warn };
console.error = (...a) => complaints.push(a.join(' '));
console.warn = (...a) => complaints.push(a.join(' '));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(json.traceEvents);
Object.assign(console, orig);
const parsed = model.parsedTrace();
if (!parsed || !parsed.data) die('the engine gave no parsed trace');
const data = parsed.data;
const out = [`events ${parsed.traceEvents.length}`];

const gpuPids = new Set();
for (const e of json.traceEvents)
	if (e.ph === 'M' && e.name === 'process_name' && /^GPU \d+$/.test(e.args?.name ?? '')) gpuPids.add(e.pid);

const kernels = new Map();
const cpuNames = new Set();
for (const [pid, proc] of data.Renderer.processes) {
	for (const [tid, th] of proc.threads) {
		const entries = th.entries ?? [];
		out.push(`thread ${pid} ${tid} ${th.name} entries=${entries.length}`);
		if (gpuPids.has(pid)) {
			out.push(`gpu_thread ${pid} ${tid} ${th.name}`);
			for (const e of entries) kernels.set(e.name, (kernels.get(e.name) ?? 0) + 1);
		} else {
			for (const e of entries) cpuNames.add(e.name);
		}
	}
}
for (const [n, c] of [...kernels].sort()) out.push(`kernel ${n} ${c}`);
for (const n of [...cpuNames].sort()) out.push(`cpu_entry ${n}`);

const flows = data.Flows.flows;
let ok = 0;
for (const f of flows) {
	const a = f[0], b = f[f.length - 1];
	if (f.length === 2 && !gpuPids.has(a.pid) && gpuPids.has(b.pid) && a.name === `launch ${b.name}`) ok++;
}
out.push(`flows ${flows.length}`, `flow_ok ${ok}`);
out.push(`complaints ${complaints.length}`, ...complaints.slice(0, 20).map((c) => `complaint ${c.split('\n')[0]}`));
if (!data.Renderer.processes.size) die('the engine found no process');
process.stdout.write(out.join('\n') + '\n');
