// SPDX-License-Identifier: GPL-2.0-or-later
// Open a zt chrome-trace JSON in speedscope (npm 'speedscope', its built
// page) in headless Chromium: a server of this process on 127.0.0.1 serves
// speedscope's files and the trace; the page loads it through
// #profileURL=. Prints what the page shows as JSON (title, the profile
// selector's text, the body's text, the canvases, the console's warnings:
// slices its importer could not pair up), saves a screenshot.
// Usage: node speedscope.js TRACE.json SCREENSHOT.png
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const CDP = require('chrome-remote-interface');
const { run } = require('../chromium.js');

const [traceFile, shot] = process.argv.slice(2);
const root = path.join(__dirname, 'node_modules', 'speedscope', 'dist', 'release');
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
	'.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png' };

const server = http.createServer((req, res) => {
	const url = decodeURIComponent(req.url.split(/[?#]/)[0]);
	const file = url === '/trace.json' ? traceFile
		: path.join(root, path.normalize(url === '/' ? '/index.html' : url));
	if (url !== '/trace.json' && !file.startsWith(root + path.sep)) {
		res.writeHead(403).end();
		return;
	}
	fs.readFile(file, (err, data) => {
		if (err) {
			res.writeHead(404).end();
			return;
		}
		res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
		res.end(data);
	});
});

server.listen(0, '127.0.0.1', () => {
	const port = server.address().port;
	run(CDP, 'speedscope', 90000, async (client, { ev, click, fail, sleep }) => {
		const { Page, Runtime, Emulation } = client;
		const out = {};

		// speedscope's importer says on the console what it could not pair up
		out.warnings = [];
		Runtime.consoleAPICalled((m) => {
			if (m.type === 'warning' || m.type === 'error')
				out.warnings.push(m.args.map((x) => x.value ?? x.description ?? '').join(' ').slice(0, 300));
		});
		await Page.enable();
		await Runtime.enable();
		await Emulation.setDeviceMetricsOverride({ width: 1400, height: 900, deviceScaleFactor: 1, mobile: false });
		const loaded = Page.loadEventFired();
		await Page.navigate({ url: `http://127.0.0.1:${port}/index.html#profileURL=${encodeURIComponent(`http://127.0.0.1:${port}/trace.json`)}` });
		await loaded;
		// the import runs after the load: wait for the flame chart's canvas
		for (let i = 0; i < 100; i++) {
			out.canvases = await ev('document.querySelectorAll("canvas").length');
			out.text = await ev('document.body.innerText');
			if (out.canvases > 0 && !/Loading|Importing/i.test(out.text)) break;
			await sleep(200);
		}
		await sleep(500);
		out.title = await ev('document.title');
		out.text = await ev('document.body.innerText');
		out.canvasSizes = await ev('[...document.querySelectorAll("canvas")].map((c) => c.width + "x" + c.height)');
		const s = await Page.captureScreenshot({ format: 'png' });
		fs.writeFileSync(shot, Buffer.from(s.data, 'base64'));
		// the next thread: speedscope's 'n' key
		await client.Input.dispatchKeyEvent({ type: 'keyDown', key: 'n', text: 'n' });
		await client.Input.dispatchKeyEvent({ type: 'keyUp', key: 'n' });
		await sleep(800);
		out.next = await ev('document.body.innerText');
		const s2 = await Page.captureScreenshot({ format: 'png' });
		fs.writeFileSync(shot.replace(/\.png$/, '') + '-next.png', Buffer.from(s2.data, 'base64'));
		// the profile selector (a click on the title) lists every thread's name
		const [x, y] = await ev(`(() => { const e = [...document.querySelectorAll('div,span')]
			.filter((d) => /\\(\\d+\\/\\d+\\)/.test(d.textContent) && d.children.length <= 2)
			.sort((a, b) => a.textContent.length - b.textContent.length)[0];
			if (!e) return [0, 0];
			const b = e.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()`);
		await click(x, y);
		await sleep(500);
		out.selector = await ev('document.body.innerText');
		console.log(JSON.stringify(out));
		server.close();
	});
});
