// SPDX-License-Identifier: GPL-2.0-or-later
// zt serve's web page in headless Chromium, used as a person would: give
// the token the page asks for, select a profile, see its flame graph, click
// a frame to zoom, search, read the top table, diff two selections. Prints
// what was seen as JSON. Usage: node web.js URL TOKEN FRAME REGEX SHOT.png
'use strict';
const fs = require('fs');
const CDP = require('chrome-remote-interface');
const { run } = require('../chromium.js');

const [url, token, frameName, regex, shot] = process.argv.slice(2);

run(CDP, 'serve-web', 90000, async (client, { ev, click, fail, sleep }) => {
	const { Page, Runtime, Input, Emulation, Network } = client;
	const out = { requests: [] };
	const until = async (expr, what) => {
		for (let i = 0; i < 200; i++) {
			if (await ev(expr)) return;
			await sleep(50);
		}
		fail('waited in vain for ' + what);
	};
	const clickSel = async (sel) => {
		const [x, y] = await ev(`(() => { const b = document.querySelector(${JSON.stringify(sel)})
			.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()`);
		await click(x, y);
	};
	const svg = 'document.getElementById("flame").contentDocument';
	await Network.enable();
	Network.requestWillBeSent((r) => out.requests.push(r.request.url));
	await Page.enable();
	await Runtime.enable();
	await Emulation.setDeviceMetricsOverride({ width: 1300, height: 1400, deviceScaleFactor: 1, mobile: false });
	const loaded = Page.loadEventFired();
	await Page.navigate({ url });
	await loaded;
	// reads need a token: the page asks for one
	await until('document.getElementById("token-dialog").className === "on"', 'the token dialog');
	out.askedToken = true;
	await ev(`document.getElementById("token-input").value = ${JSON.stringify(token)}`);
	await clickSel('#token-ok');
	await until('document.querySelectorAll("#profiles tbody tr").length >= 2', 'two listed profiles');
	out.rows = await ev('document.querySelectorAll("#profiles tbody tr").length');
	out.tokenKept = await ev('sessionStorage.getItem("zt-token") === ' + JSON.stringify(token));
	// select the first profile, show its flame graph
	await clickSel('#profiles tbody tr:nth-child(1) input.sel');
	await clickSel('#btn-flame');
	await until(`(() => { const d = ${svg}; return d && d.querySelectorAll('g.f').length > 0; })()`, 'the flame graph');
	await sleep(300);
	out.frames = await ev(`${svg}.querySelectorAll('g.f').length`);
	await until('document.querySelectorAll("#top tbody tr").length > 0', 'the top table');
	out.topRows = await ev('document.querySelectorAll("#top tbody tr").length');
	out.topHasFrame = await ev(`[...document.querySelectorAll('#top tbody tr')].some((tr) =>
		tr.children[4].textContent === ${JSON.stringify(frameName)})`);
	// its source column: the hottest line, as the flame's tooltip has it
	out.topSource = await ev(`([...document.querySelectorAll('#top tbody tr')].find((tr) =>
		tr.children[4].textContent === ${JSON.stringify(frameName)}) || { children: [] })
		.children[6]?.textContent || ''`);
	// click the widest frame of that name, inside the frame
	const pick = `[...${svg}.querySelectorAll('g.f')].filter((g) =>
		g.querySelector('title').textContent.split('\\n')[0] === ${JSON.stringify(frameName)})
		.sort((a, b) => b.querySelector('rect').getAttribute('width') - a.querySelector('rect').getAttribute('width'))[0]`;
	out.found = await ev(`!!(${pick})`);
	if (!out.found) fail('no frame named ' + frameName);
	await ev(`window.__z = ${pick}`);
	out.before = await ev('+window.__z.querySelector("rect").getAttribute("width")');
	const [cx, cy] = await ev(`(() => { const f = document.getElementById('flame').getBoundingClientRect();
		const b = window.__z.querySelector('rect').getBoundingClientRect();
		return [f.x + b.x + b.width / 2, f.y + b.y + b.height / 2]; })()`);
	await click(cx, cy);
	await sleep(200);
	out.after = await ev('+window.__z.querySelector("rect").getAttribute("width")');
	await clickSel('#btn-reset');
	await sleep(100);
	out.reset = await ev('+window.__z.querySelector("rect").getAttribute("width")');
	// search through the page's box
	await ev(`document.getElementById("search").value = ${JSON.stringify(regex)}`);
	await clickSel('#btn-search');
	await sleep(200);
	out.matches = await ev(`+${svg}.documentElement.getAttribute('data-matches')`);
	out.matchedText = await ev('document.getElementById("matched").textContent');
	fs.writeFileSync(shot, Buffer.from((await Page.captureScreenshot({ format: 'png' })).data, 'base64'));
	// diff: the first profile as A, the second as B
	await clickSel('#btn-a');
	await clickSel('#profiles tbody tr:nth-child(1) input.sel');
	await clickSel('#profiles tbody tr:nth-child(2) input.sel');
	await clickSel('#btn-b');
	out.diffEnabled = await ev('!document.getElementById("btn-diff").disabled');
	await ev(`document.getElementById("flame").setAttribute("src", "about:blank")`);
	await sleep(100);
	await clickSel('#btn-diff');
	await until(`(() => { const d = ${svg}; return d && d.querySelectorAll('g.f').length > 0; })()`, 'the diff');
	out.diffTitle = await ev('document.getElementById("view-title").textContent');
	out.diffFrames = await ev(`${svg}.querySelectorAll('g.f').length`);
	out.status = await ev('document.getElementById("status").textContent');
	out.foreign = out.requests.filter((u) => !u.startsWith(url.replace(/\/$/, '')) && !u.startsWith('blob:') &&
		!u.startsWith('about:') && !u.startsWith('data:'));
	delete out.requests;
	console.log(JSON.stringify(out));
});
