// SPDX-License-Identifier: GPL-2.0-or-later
// Load a zt flame graph in headless Chromium and use it as a person would:
// click a frame (it must fill the width), reset the zoom, search through
// the Search button's prompt; print what was seen as JSON, save a screenshot.
// Usage: node browser.js FILE.svg SCREENSHOT.png FRAME REGEX
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const CDP = require('chrome-remote-interface');

const [svgFile, shot, frameName, regex] = process.argv.slice(2);
const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'zt-chromium-'));
const chrome = spawn(process.env.CHROMIUM || 'chromium', [
	'--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run',
	'--remote-debugging-port=0', '--user-data-dir=' + profileDir, 'about:blank',
], { stdio: ['ignore', 'ignore', 'pipe'] });

function fail(msg) {
	console.error('flame-browser: ' + msg);
	chrome.kill('SIGKILL');
	process.exit(1);
}
const timer = setTimeout(() => fail('timed out'), 60000);

function devtoolsPort() {
	return new Promise((resolve, reject) => {
		let err = '';
		chrome.stderr.on('data', (d) => {
			err += d;
			const m = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(err);
			if (m) resolve(+m[1]);
		});
		chrome.on('exit', (c) => reject(new Error('chromium exited ' + c + ': ' + err)));
	});
}

async function main() {
	const port = await devtoolsPort();
	const client = await CDP({ port });
	const { Page, Runtime, Input, Emulation } = client;
	const ev = async (expr) => {
		const r = await Runtime.evaluate({ expression: expr, returnByValue: true });
		if (r.exceptionDetails) throw new Error(expr + ': ' + JSON.stringify(r.exceptionDetails));
		return r.result.value;
	};
	const click = async (x, y) => {
		for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased'])
			await Input.dispatchMouseEvent({ type, x, y, button: 'left', clickCount: 1 });
	};
	const center = (sel) => ev(`(() => { const b = ${sel}.getBoundingClientRect();
		return [b.x + b.width / 2, b.y + b.height / 2]; })()`);
	const out = {};

	await Page.enable();
	await Runtime.enable();
	await Emulation.setDeviceMetricsOverride({ width: 1300, height: 900, deviceScaleFactor: 1, mobile: false });
	Page.javascriptDialogOpening((d) => {
		out.dialog = d.type;
		Page.handleJavaScriptDialog({ accept: true, promptText: regex });
	});
	const loaded = Page.loadEventFired();
	await Page.navigate({ url: 'file://' + path.resolve(svgFile) });
	await loaded;
	out.frames = await ev('document.querySelectorAll("g.f").length');
	out.width = await ev('+document.documentElement.getAttribute("width")');
	out.height = await ev('+document.documentElement.getAttribute("height")');
	// the widest frame of that name
	const pick = `[...document.querySelectorAll('g.f')].filter((g) =>
		g.querySelector('title').textContent.split('\\n')[0] === ${JSON.stringify(frameName)})
		.sort((a, b) => b.querySelector('rect').getAttribute('width') - a.querySelector('rect').getAttribute('width'))[0]`;
	out.found = await ev(`!!(${pick})`);
	if (!out.found) fail('no frame named ' + frameName);
	await ev(`window.__z = ${pick}`);
	out.before = await ev('+window.__z.querySelector("rect").getAttribute("width")');
	const [cx, cy] = await center('window.__z.querySelector("rect")');
	await click(cx, cy);
	out.after = await ev('+window.__z.querySelector("rect").getAttribute("width")');
	out.label = await ev('window.__z.querySelector("text").textContent');
	out.hidden = await ev('document.querySelectorAll("g.f.hide").length');
	out.parents = await ev('document.querySelectorAll("g.f.parent").length');
	out.resetShown = await ev('!document.getElementById("unzoom").classList.contains("hide")');
	await Page.captureScreenshot({ format: 'png' }).then((s) =>
		fs.writeFileSync(shot.replace(/\.png$/, '') + '-zoomed.png', Buffer.from(s.data, 'base64')));
	const [ux, uy] = await center('document.getElementById("unzoom")');
	await click(ux, uy);
	out.reset = await ev('+window.__z.querySelector("rect").getAttribute("width")');
	out.hiddenAfterReset = await ev('document.querySelectorAll("g.f.hide").length');
	const [sx, sy] = await center('document.getElementById("search")');
	await click(sx, sy);
	// the prompt is answered by the dialog handler; the search runs after it
	await new Promise((r) => setTimeout(r, 200));
	out.matches = await ev('+document.documentElement.getAttribute("data-matches")');
	out.matched = await ev('+document.documentElement.getAttribute("data-matched")');
	out.matchedText = await ev('document.getElementById("matched").textContent');
	out.magenta = await ev('document.querySelectorAll("rect[fill=\'rgb(230,0,230)\']").length');
	const s = await Page.captureScreenshot({ format: 'png' });
	fs.writeFileSync(shot, Buffer.from(s.data, 'base64'));
	await client.close();
	console.log(JSON.stringify(out));
}

main().then(() => {
	clearTimeout(timer);
	// the profile directory goes once chromium has stopped writing to it
	chrome.on('exit', () => {
		try { fs.rmSync(profileDir, { recursive: true, force: true, maxRetries: 5 }); } catch (e) { }
	});
	chrome.kill('SIGKILL');
}, (e) => fail(e.stack || String(e)));
