// SPDX-License-Identifier: GPL-2.0-or-later
// Load a zt flame graph in headless Chromium and use it as a person would:
// click a frame (it must fill the width), reset the zoom, search through
// the Search button's prompt; print what was seen as JSON, save a screenshot.
// Usage: node browser.js FILE.svg SCREENSHOT.png FRAME REGEX
'use strict';
const fs = require('fs');
const path = require('path');
const CDP = require('chrome-remote-interface');
const { run } = require('../chromium.js');

const [svgFile, shot, frameName, regex] = process.argv.slice(2);

run(CDP, 'flame-browser', 60000, async (client, { ev, click, fail, sleep }) => {
	const { Page, Runtime, Input, Emulation } = client;
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
	console.log(JSON.stringify(out));
});
