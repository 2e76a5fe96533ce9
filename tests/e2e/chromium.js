// SPDX-License-Identifier: GPL-2.0-or-later
// Headless Chromium for the browser tests (flame/browser.js,
// serve-web/web.js): started on about:blank with a DevTools port of its own
// and a fresh profile directory, driven through chrome-remote-interface.
// run(CDP, name, timeoutMs, body): body(client, h) with helpers h.ev (a
// JavaScript expression's value, promises awaited), h.click(x, y),
// h.fail(msg) and h.sleep(ms); then Chromium is killed and its profile
// directory removed. A failure or the timeout prints "name: why" and
// exits 1. CDP is the caller's require('chrome-remote-interface') (the
// package lives in flame/node_modules).
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

function run(CDP, name, timeoutMs, body) {
	const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'zt-chromium-'));
	const chrome = spawn(process.env.CHROMIUM || 'chromium', [
		'--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run',
		'--disable-background-networking', '--disable-component-update', '--disable-sync',
		'--remote-debugging-port=0', '--user-data-dir=' + profileDir, 'about:blank',
	], { stdio: ['ignore', 'ignore', 'pipe'] });
	const fail = (msg) => {
		console.error(name + ': ' + msg);
		chrome.kill('SIGKILL');
		process.exit(1);
	};
	const timer = setTimeout(() => fail('timed out'), timeoutMs);
	const port = new Promise((resolve, reject) => {
		let err = '';
		chrome.stderr.on('data', (d) => {
			err += d;
			const m = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(err);
			if (m) resolve(+m[1]);
		});
		chrome.on('exit', (c) => reject(new Error('chromium exited ' + c + ': ' + err)));
	});
	const main = async () => {
		const client = await CDP({ port: await port });
		const { Runtime, Input } = client;
		const h = {
			fail,
			sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
			ev: async (expr) => {
				const r = await Runtime.evaluate({ expression: expr, returnByValue: true, awaitPromise: true });
				if (r.exceptionDetails) throw new Error(expr + ': ' + JSON.stringify(r.exceptionDetails));
				return r.result.value;
			},
			click: async (x, y) => {
				for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased'])
					await Input.dispatchMouseEvent({ type, x, y, button: 'left', clickCount: 1 });
			},
		};
		await body(client, h);
		await client.close();
	};
	main().then(() => {
		clearTimeout(timer);
		// the profile directory goes once chromium has stopped writing to it
		chrome.on('exit', () => {
			try { fs.rmSync(profileDir, { recursive: true, force: true, maxRetries: 5 }); } catch (e) { }
		});
		chrome.kill('SIGKILL');
	}, (e) => fail(e.stack || String(e)));
}

module.exports = { run };
