// SPDX-License-Identifier: GPL-2.0-or-later
// zt serve's web page in headless Chromium, used as a Pyroscope user would
// use it, every view driven and checked against the API's own answers (the
// same requests the page made, made again from here). Prints one line per
// check, "ok|FAIL|skip<TAB>what", as it goes (a crash keeps what came
// before); screenshots into SHOTS. Usage: node web.js BASE TOKEN SHOTS
'use strict';
const fs = require('fs');
const path = require('path');
const CDP = require('chrome-remote-interface');
const { run } = require('../chromium.js');

const [base, token, shots] = process.argv.slice(2);
const J = JSON.stringify;
const say = (st, what) => console.log(st + '\t' + String(what).replace(/[\t\n]+/g, ' ').slice(0, 400));
const check = (what, cond, detail) => say(cond ? 'ok' : 'FAIL', what + (detail !== undefined ? ' (' + detail + ')' : ''));
const apiGet = async (p) => {
	const r = await fetch(base + p, { headers: { Authorization: 'Bearer ' + token } });
	return { status: r.status, text: await r.text() };
};
const apiJSON = async (p) => {
	const r = await apiGet(p);
	try { return JSON.parse(r.text); } catch (e) { return null; }
};
const enc = encodeURIComponent;
// a number as the page shows it, back in the unit: "12.34 ms" -> 12340000
const shown = (t) => {
	const m = /^([+-]?[\d,]*\.?\d+)\s*(s|ms|\u00b5s|ns)?$/.exec(String(t).trim());
	if (!m) return NaN;
	return +m[1].replace(/,/g, '') * ({ s: 1e9, ms: 1e6, '\u00b5s': 1e3, ns: 1 }[m[2]] || 1);
};
const near = (a, b) => Math.abs(a - b) <= Math.max(1, Math.abs(b) * 0.006);
const sameSet = (a, b) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
const Q = {
	cpu: '{__name__="cpu"}',
	prod: '{__name__="cpu",env="prod"}',
	dev: '{__name__="cpu",env="dev"}',
	hot: '{__name__="cpu",command="hot"}',
	pf: '{__name__="page-faults",env="prod"}',
};

function helpers(c, sleep) {
	const ev = async (expr) => {
		const r = await c.Runtime.evaluate({ expression: expr, returnByValue: true, awaitPromise: true });
		if (r.exceptionDetails) {
			const d = r.exceptionDetails;
			throw new Error(expr.slice(0, 120) + ': ' + ((d.exception && d.exception.description) || d.text));
		}
		return r.result.value;
	};
	const until = async (expr, what, ms) => {
		const t0 = Date.now();
		while (Date.now() - t0 < (ms || 10000)) {
			if (await ev(expr)) return;
			await sleep(50);
		}
		throw new Error('waited in vain for ' + what);
	};
	// no request in flight, no "loading" in the status line, a few polls running
	const idle = async () => {
		let n = 0;
		const t0 = Date.now();
		while (Date.now() - t0 < 20000) {
			const b = await ev(`!!window.zt && zt.inflight === 0 && !/^loading/.test(document.getElementById('status').textContent)`);
			n = b ? n + 1 : 0;
			if (n >= 4) { await sleep(100); return; }
			await sleep(50);
		}
		throw new Error('the page did not settle: ' + (await ev('document.getElementById("status").textContent')));
	};
	const mouse = (type, x, y) => c.Input.dispatchMouseEvent({ type, x, y, button: 'left', buttons: type === 'mouseMoved' ? 0 : 1, clickCount: 1 });
	const clickAt = async (x, y) => { await mouse('mouseMoved', x, y); await mouse('mousePressed', x, y); await mouse('mouseReleased', x, y); };
	const drag = async (x0, y, x1) => {
		await mouse('mouseMoved', x0, y);
		await mouse('mousePressed', x0, y);
		for (let i = 1; i <= 6; i++)
			await c.Input.dispatchMouseEvent({ type: 'mouseMoved', x: x0 + (x1 - x0) * i / 6, y, button: 'left', buttons: 1 });
		await mouse('mouseReleased', x1, y);
	};
	const center = (sel) => ev(`(() => { const e = document.querySelector(${J(sel)}); if (!e) return null;
		e.scrollIntoView({ block: 'center' }); const b = e.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()`);
	const clickSel = async (sel) => {
		const p = await center(sel);
		if (!p) throw new Error('no element ' + sel);
		await clickAt(p[0], p[1]);
	};
	const key = async (k, vk) => {
		await c.Input.dispatchKeyEvent({ type: 'rawKeyDown', key: k, code: k, windowsVirtualKeyCode: vk });
		await c.Input.dispatchKeyEvent({ type: 'keyUp', key: k, code: k, windowsVirtualKeyCode: vk });
	};
	const typeText = (text) => c.Input.insertText({ text });
	const shot = async (name) => {
		await ev('window.scrollTo(0, 0)');
		await sleep(80);
		const r = await c.Page.captureScreenshot({ format: 'png' });
		fs.writeFileSync(path.join(shots, name + '.png'), Buffer.from(r.data, 'base64'));
	};
	const state = async () => JSON.parse(await ev('JSON.stringify(zt.state)'));
	const frames = (fl) => ev(`zt.${fl}.frames()`);
	// the widest frame named name (not an ancestor of the zoom), clicked in its middle
	const clickFrame = async (fl, f) => {
		const p = await ev(`(() => { const c = zt.${fl}.c; let b = c.getBoundingClientRect();
			window.scrollTo(0, window.scrollY + b.top + ${f.y} - 300); b = c.getBoundingClientRect();
			return [b.x + ${f.x + f.w / 2}, b.y + ${f.y + 9}]; })()`);
		await clickAt(p[0], p[1]);
	};
	const rows = (sel) => ev(`[...document.querySelectorAll(${J(sel + ' tbody tr[data-name]')})].map((tr) => ({ name: tr.dataset.name,
		sel: tr.classList.contains('sel'), c: [...tr.children].map((td) => ({ t: td.textContent, v: td.dataset.v === undefined ? null : +td.dataset.v })) }))`);
	const setQuery = async (sel, q) => {
		await ev(`(() => { const i = document.querySelector(${J(sel)}); i.focus(); i.value = ${J(q)}; })()`);
		await sleep(150);
		await key('Escape', 27);
		await key('Enter', 13);
		await sleep(50);
		await idle();
	};
	return { ev, until, idle, clickAt, drag, center, clickSel, key, typeText, shot, state, frames, clickFrame, rows, setQuery };
}

run(CDP, 'serve-web', 160000, async (client, h) => {
	const { sleep } = h;
	const { Page, Runtime, Network, Emulation } = client;
	const T = helpers(client, sleep);
	const { ev, until, idle } = T;
	const reqs = [], errors = [];
	const lastReq = (route, pred) => {
		const u = reqs.filter((x) => x.startsWith(base + route + '?') && (!pred || pred(new URL(x).searchParams))).pop();
		return u ? u.slice(base.length) : null;
	};
	const watch = async (c) => {
		await c.Network.enable();
		c.Network.requestWillBeSent((r) => reqs.push(r.request.url));
		await c.Page.enable();
		await c.Runtime.enable();
		c.Runtime.exceptionThrown((e) => errors.push(JSON.stringify(e.exceptionDetails).slice(0, 300)));
		c.Runtime.consoleAPICalled((m) => { if (m.type === 'error') errors.push(m.args.map((a) => a.value || a.description).join(' ')); });
		await c.Emulation.setDeviceMetricsOverride({ width: 1400, height: 1100, deviceScaleFactor: 1, mobile: false });
	};
	const go = async (c, url) => {
		const loaded = c.Page.loadEventFired();
		await c.Page.navigate({ url });
		await loaded;
	};
	await watch(client);

	/* what the server offers: routes of the new API, said when missing */
	const has = {};
	for (const [k, p] of [['query', '/api/v1/top?query=' + enc(Q.cpu)], ['labels', '/api/v1/labels'],
		['timeline', '/api/v1/timeline?query=' + enc(Q.cpu)], ['source', '/api/v1/source?query=' + enc(Q.cpu) + '&function=tree_a'],
		['paging', '/api/v1/profiles?limit=1&offset=1']]) {
		const r = await apiGet(p);
		has[k] = r.status === 200;
		if (!has[k]) say('skip', 'the server has no ' + p.replace(/\?.*/, '') + (k === 'query' ? ' query=' : k === 'paging' ? ' offset=' : '') +
			' (' + r.status + ' ' + r.text.trim().slice(0, 100) + '): the page does without it');
	}

	/* the token, asked for once */
	await go(client, base + '/');
	await until(`document.getElementById('token-dialog').className === 'on'`, 'the token dialog');
	check('the page asks for a token', true);
	await T.shot('00-token');
	await ev(`document.getElementById('token-input').value = ${J(token)}`);
	await T.clickSel('#token-ok');
	await idle();
	check('the token is kept in sessionStorage', await ev(`sessionStorage.getItem('zt-token') === ${J(token)}`));
	check('one token dialog for all the first requests', (await ev('zt.asked')) === 1, await ev('zt.asked'));

	/* the profile-type picker */
	const opts = await ev(`[...document.querySelectorAll('#type option')].map((o) => o.value)`);
	const types = has.labels ? ((await apiJSON('/api/v1/label/__name__/values')) || {}).data || [] : ['cpu', 'page-faults'];
	check('the type picker lists the profile types of /api/v1/label/__name__/values', sameSet(opts, types), opts.join(', '));
	check('... cpu and page-faults among them', opts.includes('cpu') && opts.includes('page-faults'));
	check('the query names the type, cpu first', (await T.state()).query === Q.cpu, (await T.state()).query);

	/* the label-matcher bar: names and values completed */
	await ev(`(() => { const i = document.getElementById('query'); i.focus(); i.value = '{__name__="cpu",';
		i.setSelectionRange(i.value.length, i.value.length); })()`);
	await T.typeText('e');
	const acItems = `[...document.querySelectorAll('#qrow ul.ac.on li')].map((li) => li.firstChild.textContent)`;
	await until(`${acItems}.length > 0`, 'label names offered');
	const names = await ev(acItems);
	check('label names offered as typed: env', names.includes('env'), names.join(' '));
	if (has.labels) {
		const d = ((await apiJSON('/api/v1/labels?match[]=' + enc(Q.cpu))) || {}).data || [];
		check('... those of /api/v1/labels with an e', names.filter((x) => d.includes(x)).length === d.filter((x) => x.includes('e')).length,
			d.join(' '));
	}
	await T.key('Tab', 9);
	await until(`document.getElementById('query').value === '{__name__="cpu",env="'`, 'env=" completed');
	await until(`${acItems}.includes('prod')`, 'values offered');
	const vals = await ev(acItems);
	check('label values offered after env=: prod and dev', vals.includes('prod') && vals.includes('dev'), vals.join(' '));
	if (has.labels) {
		const d = ((await apiJSON('/api/v1/label/env/values?match[]=' + enc(Q.cpu))) || {}).data || [];
		check('... those of /api/v1/label/env/values', sameSet(vals, d), d.join(' '));
	}
	await T.typeText('pr');
	await until(`${acItems}.join() === 'prod'`, 'prod alone');
	await T.key('Enter', 13);
	check('a value accepted closes the quote', (await ev(`document.getElementById('query').value`)) === '{__name__="cpu",env="prod"',
		await ev(`document.getElementById('query').value`));
	await T.typeText('}');
	await sleep(300);
	await T.key('Enter', 13);
	await sleep(50);
	await idle();
	check('Enter runs the query: in the URL', new URL(await ev('location.href')).searchParams.get('query') === Q.prod,
		new URL(await ev('location.href')).searchParams.get('query'));

	/* the table, against /api/v1/top of the same request */
	const topU = lastReq('/api/v1/top');
	const top = (await apiJSON(topU)) || { functions: [] };
	if (has.query) check('the page asks /api/v1/top with the query', new URL(base + topU).searchParams.get('query') === Q.prod, topU);
	const unit = top.unit || 'samples';
	let trs = await T.rows('#tbl');
	const compareTop = (rowsNow, t, si, ti) => {
		const count = new Map();
		for (const f of t.functions) count.set(f.name, (count.get(f.name) || 0) + 1);
		const bad = [];
		let n = 0;
		for (const f of t.functions) {
			if (count.get(f.name) > 1) continue;
			const r = rowsNow.find((x) => x.name === f.name);
			n++;
			if (!r || r.c[si].v !== f.self || r.c[ti].v !== f.children) bad.push(f.name + ' ' + f.self + '/' + f.children + ' vs ' + (r ? r.c[si].v + '/' + r.c[ti].v : 'none'));
		}
		return { n, bad };
	};
	let cmp = compareTop(trs, top, 1, 3);
	check('table: self and total of every function equal /api/v1/top\'s (' + cmp.n + ' functions, ' + unit + ')', cmp.n > 3 && !cmp.bad.length, cmp.bad.slice(0, 3).join('; '));
	check('table names the workload\'s functions', ['tree_a', 'tree_b', 'leaf_x', 'leaf_y', 'inl_mix'].every((n) => trs.some((r) => r.name === n)));
	const badText = trs.filter((r) => r.c[1].v > 0 && !near(shown(r.c[1].t), r.c[1].v) || r.c[3].v > 0 && !near(shown(r.c[3].t), r.c[3].v));
	check('... the numbers shown are those values, in the unit', !badText.length, badText.slice(0, 2).map((r) => r.name + ' ' + r.c[1].t + ' ' + r.c[1].v).join('; '));
	const leafX = trs.find((r) => r.name === 'leaf_x');
	if (unit === 'nanoseconds') check('cpu shown as time (' + leafX.c[1].t + ', ' + leafX.c[3].t + ')', /\d (ms|s)$/.test(leafX.c[1].t));
	else say('skip', 'cpu shown as time: /api/v1/top gives no unit (' + unit + ')');
	const foldU = lastReq('/api/v1/folded');
	const folded = (await apiGet(foldU)).text.split('\n').filter(Boolean).map((l) => { const i = l.lastIndexOf(' '); return [l.slice(0, i).split(';'), +l.slice(i + 1)]; });
	const fsum = folded.reduce((s, l) => s + l[1], 0);
	const legend = await ev(`document.getElementById('legend').textContent`);
	check('the legend names the type, the unit and the total (' + legend.slice(0, 60) + ')', /cpu/.test(legend) &&
		(unit !== 'nanoseconds' || /CPU time/.test(legend)) && near(shown(await ev(`document.getElementById('legend-total').textContent`)), fsum));
	await T.shot('01-table-and-flame');

	/* the table sorts by a column's header, in the URL */
	await T.clickSel('#tbl th[data-key="total"]');
	await sleep(200);
	let sorted = (await T.rows('#tbl')).map((r) => r.c[3].v);
	check('a click on "total" sorts the table by it, largest first', sorted.length > 3 && sorted.every((v, i) => !i || sorted[i - 1] >= v) &&
		(await T.state()).sort === '-total');
	await T.clickSel('#tbl th[data-key="total"]');
	await sleep(200);
	sorted = (await T.rows('#tbl')).map((r) => r.c[3].v);
	check('... again: smallest first', sorted.every((v, i) => !i || sorted[i - 1] <= v) && (await T.state()).sort === '+total');
	await T.clickSel('#tbl th[data-key="name"]');
	await sleep(200);
	const byName = (await T.rows('#tbl')).map((r) => r.name);
	check('... by function name', byName.every((v, i) => !i || byName[i - 1] <= v));
	await T.clickSel('#tbl th[data-key="self"]');
	await sleep(200);

	/* export: the folded stacks of the selection, downloaded */
	const dl = path.join(shots, '..', 'downloads');
	fs.mkdirSync(dl, { recursive: true });
	try {
		await client.Browser.setDownloadBehavior({ behavior: 'allow', downloadPath: dl });
		await ev(`(() => { const s = document.getElementById('export'); s.value = 'folded'; s.dispatchEvent(new Event('change')); })()`);
		const f = path.join(dl, 'zt-cpu.txt');
		for (let i = 0; i < 100 && !fs.existsSync(f); i++) await sleep(50);
		await sleep(200);
		const want = (await apiGet(foldU)).text;
		check('Export: the folded stacks of the selection downloaded', fs.existsSync(f) && fs.readFileSync(f, 'utf8') === want,
			fs.existsSync(f) ? fs.statSync(f).size + ' bytes' : 'no file');
	} catch (e) { check('Export: the folded stacks downloaded', false, e.message); }

	/* the flame graph: drawn by the page, its container's width, resizing */
	let fr = await T.frames('flame');
	let cw = await ev('zt.flame.c.clientWidth');
	const pw = await ev('zt.flame.c.parentElement.clientWidth');
	const root = () => fr.find((f) => f.depth === 0);
	check('the flame graph is drawn by the page (' + fr.length + ' frames)', fr.length > 5);
	check('... no iframe, no SVG', await ev(`!document.querySelector('iframe') && !document.querySelector('main svg')`));
	check('... the root fills its container (' + root().w + ' of ' + pw + ' px)', Math.abs(root().w - cw) < 1 && Math.abs(cw - pw) < 2);
	await Emulation.setDeviceMetricsOverride({ width: 1000, height: 1100, deviceScaleFactor: 1, mobile: false });
	await sleep(400);
	fr = await T.frames('flame');
	const cw2 = await ev('zt.flame.c.clientWidth');
	check('... and follows it when the window narrows (' + cw + ' -> ' + root().w + ' px)', cw2 < cw && Math.abs(root().w - cw2) < 1);
	await Emulation.setDeviceMetricsOverride({ width: 1400, height: 1100, deviceScaleFactor: 1, mobile: false });
	await sleep(400);
	cw = await ev('zt.flame.c.clientWidth');

	/* a table row focuses its function in the flame graph */
	await T.clickSel('#tbl tbody tr[data-name="tree_a"]');
	await sleep(300);
	let st = await T.state();
	fr = await T.frames('flame');
	let zf = fr.filter((f) => !f.anc).sort((a, b) => a.depth - b.depth)[0];
	check('a table row click focuses tree_a: fn=tree_a in the URL', new URL(await ev('location.href')).searchParams.get('fn') === 'tree_a');
	check('... the flame graph zoomed to it (' + zf.name + ', ' + Math.round(zf.w) + ' px)', zf.name === 'tree_a' && Math.abs(zf.w - cw) < 1);
	check('... its row selected', (await T.rows('#tbl')).find((r) => r.name === 'tree_a').sel);
	await T.shot('02-focus-tree_a');

	/* a click on a frame zooms */
	await T.clickSel('#btn-reset');
	await sleep(300);
	fr = await T.frames('flame');
	const lx = fr.filter((f) => f.name === 'leaf_x' && !f.anc).sort((a, b) => b.w - a.w)[0];
	await T.clickFrame('flame', lx);
	await sleep(300);
	fr = await T.frames('flame');
	const lx1 = fr.filter((f) => f.name === 'leaf_x' && !f.anc && f.path.join(';') === lx.path.join(';'))[0];
	check('a click on leaf_x zooms it to the full width (' + Math.round(lx.w) + ' -> ' + Math.round(lx1 && lx1.w) + ')', lx1 && Math.abs(lx1.w - cw) < 1);
	st = await T.state();
	check('... fn and zoom in the URL', st.fn === 'leaf_x' && JSON.parse(st.zoom || '[]').join(';') === lx.path.join(';'), st.zoom);
	await T.clickSel('#crumbs a');
	await sleep(300);
	fr = await T.frames('flame');
	const lx2 = fr.filter((f) => f.name === 'leaf_x' && f.path.join(';') === lx.path.join(';'))[0];
	check('the crumb "total" resets the zoom', lx2 && Math.abs(lx2.w - lx.w) < 0.5);

	/* search */
	await ev(`document.getElementById('search').focus()`);
	await T.typeText('leaf_');
	await sleep(500);
	const matchN = await ev('zt.flame.matchN');
	trs = await T.rows('#tbl');
	check('search highlights frames (' + (await ev(`document.getElementById('matched').textContent`)) + ')', matchN > 0);
	check('... and filters the table', trs.length > 0 && trs.every((r) => /leaf_/i.test(r.name)), trs.map((r) => r.name).join(' '));
	check('... in the URL', (await T.state()).search === 'leaf_');
	await T.shot('03-search');
	await ev(`(() => { const i = document.getElementById('search'); i.value = ''; i.dispatchEvent(new Event('input')); })()`);
	await sleep(400);

	/* the flame graph view (root at the bottom), the icicle (at the top), the table alone */
	await T.clickSel('#views button[data-view="flame"]');
	await sleep(300);
	fr = await T.frames('flame');
	check('flame graph view: the root at the bottom', root().y === Math.max(...fr.map((f) => f.y)) && root().y > 0);
	await T.shot('04-flame');
	await T.clickSel('#views button[data-view="icicle"]');
	await sleep(300);
	fr = await T.frames('flame');
	check('icicle view: the root at the top', root().y === 0 && Math.max(...fr.map((f) => f.y)) > 0);
	await T.shot('05-icicle');
	await T.clickSel('#views button[data-view="table"]');
	await sleep(200);
	check('table view: the table alone', await ev(`getComputedStyle(document.querySelector('.p-flame')).display === 'none' &&
		getComputedStyle(document.querySelector('.p-table')).display !== 'none'`));
	await T.shot('06-table');

	/* sandwich: callers of tree_a above, callees below, as the folded stacks have them */
	await T.clickSel('#views button[data-view="sandwich"]');
	await T.clickSel('#tbl tbody tr[data-name="tree_a"]');
	await sleep(400);
	const callers = new Set(), callees = new Set();
	let ta = 0;
	for (const [f, v] of folded) {
		const i = f.indexOf('tree_a');
		if (i < 1) continue;
		ta += v;
		callers.add(f[i - 1]);
		if (i + 1 < f.length) callees.add(f[i + 1]);
	}
	const up = (await T.frames('swUp')).filter((f) => f.depth === 1).map((f) => f.name);
	const down = (await T.frames('swDown')).filter((f) => f.depth === 1).map((f) => f.name);
	check('sandwich: the callers of tree_a (' + up.join(' ') + ')', up.length > 0 && up.every((x) => callers.has(x)) && up.includes('tree_round'));
	check('sandwich: the callees of tree_a (' + down.join(' ') + ')', sameSet(down, [...callees]) && down.includes('leaf_x') && down.includes('leaf_y'));
	const swv = await ev('zt.swUp.tree.v');
	check('... tree_a\'s total in the middle equals /api/v1/top\'s', swv === ta && swv === (top.functions.find((f) => f.name === 'tree_a') || {}).children, swv + ' vs ' + ta);
	const upY = (await T.frames('swUp')), dnY = (await T.frames('swDown'));
	check('... callers drawn above it, callees below', upY.find((f) => f.depth === 0).y > upY.find((f) => f.depth === 1).y &&
		dnY.find((f) => f.depth === 0).y < dnY.find((f) => f.depth === 1).y);
	await T.shot('07-sandwich');

	/* source: the lines of tree_a */
	await T.clickSel('#views button[data-view="source"]');
	await idle();
	await until(`document.querySelector('#src tbody tr') || document.querySelector('#src .hint:not(:empty)') && !/loading/.test(document.getElementById('src').textContent)`, 'the source view');
	await sleep(200);
	if (has.source) {
		const su = lastReq('/api/v1/source');
		const sj = (await apiJSON(su)) || { lines: [] };
		const pl = await ev(`[...document.querySelectorAll('#src tbody tr')].map((tr) => ({ line: +tr.dataset.line,
			self: +tr.children[1].dataset.v, total: +tr.children[2].dataset.v, code: tr.children[3].textContent }))`);
		const bad = (sj.lines || []).filter((l) => { const r = pl.find((x) => x.line === l.line); return !r || r.self !== l.self || r.total !== l.total; });
		check('source view: per-line samples of tree_a equal /api/v1/source\'s (' + (sj.lines || []).length + ' lines)', (sj.lines || []).length > 0 && !bad.length,
			bad.slice(0, 2).map((l) => l.line).join(' '));
		check('... the line total is tree_a\'s (' + sj.lines.reduce((s, l) => Math.max(s, l.total), 0) + ')', sj.lines.some((l) => l.total > 0));
		check('... with the uploaded source text', Array.isArray(sj.text) && pl.length === sj.text.length &&
			pl.every((r, i) => r.code === sj.text[i]) && pl.some((r) => /leaf_x\s*\(/.test(r.code) && r.total > 0));
	} else {
		check('source view: says the server has no /api/v1/source', /no \/api\/v1\/source/.test(await ev(`document.getElementById('src').textContent`)));
	}
	await T.shot('08-source');

	/* the timeline and its brush */
	await T.clickSel('#views button[data-view="both"]');
	await idle();
	const tl = await ev('zt.tlMain.d');
	const nz = tl.points.filter((p) => p[1] > 0);
	check('the timeline shows the selection over time (' + nz.length + ' steps of ' + tl.step + ' s with samples)', nz.length > 0);
	if (has.timeline) {
		const tu = lastReq('/api/v1/timeline');
		const tj = (await apiJSON(tu)) || {};
		check('... the points of /api/v1/timeline', J(tj.points) === J(tl.points) && tj.unit === unit, tj.unit);
		check('... its sum is the selection\'s total', near(tl.points.reduce((s, p) => s + p[1], 0), fsum), fsum);
	}
	const t0 = nz[0][0], t1 = nz[nz.length - 1][0] + tl.step;
	const [bx0, by, bx1] = await ev(`(() => { const c = zt.tlMain.c; c.scrollIntoView({ block: 'center' }); const b = c.getBoundingClientRect();
		return [b.x + zt.tlMain.xOf(${t0}) - 6, b.y + b.height / 2, b.x + zt.tlMain.xOf(${t1}) + 6]; })()`);
	await T.drag(bx0, by, bx1);
	await sleep(100);
	await idle();
	st = await T.state();
	check('a brush over the timeline puts its range in the URL (' + st.from + '..' + st.to + ')', /^\d+$/.test(st.from) && /^\d+$/.test(st.to) &&
		+st.from <= t0 && +st.to >= t1 && +st.to - +st.from < 3600);
	const fu = lastReq('/api/v1/folded');
	check('... and the views ask for that range', has.query ? new URL(base + fu).searchParams.get('from') === st.from : true, fu);
	check('... the time-range button says it', !/Last/.test(await ev(`document.getElementById('tr-btn').textContent`)), await ev(`document.getElementById('tr-btn').textContent`));
	await T.shot('09-brushed');

	/* the time-range picker: seconds, and quick ranges */
	const localTs = (t) => { const d = new Date(t * 1000), p = (x) => String(x).padStart(2, '0');
		return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds()); };
	const F = t0 - 37, U = t1 + 23;
	await T.clickSel('#tr-btn');
	await ev(`document.getElementById('tr-from').value = ${J(localTs(F))}; document.getElementById('tr-to').value = ${J(localTs(U))}`);
	await T.clickSel('#tr-apply');
	await idle();
	st = await T.state();
	check('the time-range picker takes seconds (' + localTs(F) + ' -> from=' + st.from + ')', st.from === String(F) && st.to === String(U));
	await T.clickSel('#tr-btn');
	await T.shot('10-time-picker');
	await T.clickSel('#tr-quick button[data-range="5m"]');
	await idle();
	st = await T.state();
	check('quick range 5m', st.from === 'now-5m' && st.to === 'now');
	for (const r of ['1h', '24h', '7d']) check('quick range ' + r + ' offered', await ev(`!!document.querySelector('#tr-quick button[data-range="${r}"]')`));
	// back to the recordings' seconds
	await T.clickSel('#tr-btn');
	await ev(`document.getElementById('tr-from').value = ${J(localTs(F))}; document.getElementById('tr-to').value = ${J(localTs(U))}`);
	await T.clickSel('#tr-apply');
	await idle();

	/* the URL gives the same view: reloaded, and in a second tab */
	await T.clickSel('#views button[data-view="icicle"]');
	await T.clickSel('#tbl tbody tr[data-name="tree_b"]');
	await idle();
	const snap = async (E) => ({
		url: await E('location.href'),
		view: await E(`document.querySelector('#views button.on').dataset.view`),
		query: await E(`document.getElementById('query').value`),
		rows: await E(`[...document.querySelectorAll('#tbl tbody tr')].slice(0, 12).map((tr) => tr.textContent).join('|')`),
		zoom: await E(`(zt.flame.zoom || {}).name`),
		frames: await E('zt.flame.frames().length'),
		sel: await E(`(document.querySelector('#tbl tr.sel') || {}).textContent`),
	});
	const before = await snap(ev);
	await client.Page.reload();
	await sleep(300);
	await idle();
	const after = await snap(ev);
	check('reloading the URL gives the same view (' + before.view + ', ' + before.zoom + ', ' + before.frames + ' frames)', J(before) === J(after),
		J(after).slice(0, 200));
	check('... without asking for the token again', (await ev('zt.asked')) === 0);
	const t2 = await CDP.New({ port: client.port, url: 'about:blank' });
	const c2 = await CDP({ port: client.port, target: t2 });
	await watch(c2);
	const E2 = helpers(c2, sleep);
	await go(c2, before.url);
	await E2.idle();
	const other = await snap(E2.ev);
	check('the URL in a second tab: the same view', J(other) === J(before), J(other).slice(0, 200));
	check('... the token not asked there (handed over by the first tab)', (await E2.ev('zt.asked')) === 0 &&
		(await E2.ev(`document.getElementById('token-dialog').className`)) !== 'on');
	await E2.shot('11-second-tab');
	await c2.close();
	await CDP.Close({ port: client.port, id: t2.id });

	/* page faults: counts, not time */
	await ev(`(() => { const s = document.getElementById('type'); s.value = 'page-faults'; s.dispatchEvent(new Event('change')); })()`);
	await idle();
	st = await T.state();
	check('the type picker changes __name__ in the query (' + st.query + ')', st.query === Q.pf);
	const ptop = (await apiJSON(lastReq('/api/v1/top'))) || { functions: [] };
	trs = await T.rows('#tbl');
	cmp = compareTop(trs, ptop, 1, 3);
	check('page-faults table: equal /api/v1/top\'s (' + cmp.n + ' functions, ' + (ptop.unit || 'no unit') + ')', cmp.n > 0 && !cmp.bad.length, cmp.bad.slice(0, 3).join('; '));
	check('... shown as counts', trs.length > 0 && trs.every((r) => /^[\d,]+$/.test(r.c[1].t)), trs.slice(0, 2).map((r) => r.c[1].t).join(' '));
	check('... the legend says page-faults', /page-faults/.test(await ev(`document.getElementById('legend').textContent`)));
	await T.shot('12-page-faults');

	/* the profile list, a page at a time */
	await ev(`(() => { const s = document.getElementById('type'); s.value = 'cpu'; s.dispatchEvent(new Event('change')); })()`);
	await idle();
	await T.setQuery('#query', Q.cpu);
	await T.clickSel('#tabs button[data-tab="profiles"]');
	await idle();
	let pu = lastReq('/api/v1/profiles', (p) => p.has('limit') && p.get('limit') !== '1000' || p.has('offset'));
	const plist = async () => ev(`[...document.querySelectorAll('#plist tbody tr')].map((tr) => tr.dataset.id)`);
	let ids = await plist();
	check('the profiles tab lists the cpu profiles (' + ids.length + ')', ids.length === 4);
	const u2 = new URL(await ev('location.href'));
	u2.searchParams.set('limit', '2');
	await go(client, u2.toString());
	await idle();
	const page1 = await plist();
	pu = lastReq('/api/v1/profiles', (p) => p.get('limit') === '2');
	const pj = has.paging && pu ? await apiJSON(pu) : null;
	check('limit=2 in the URL: two profiles a page (' + (await ev(`document.getElementById('pg-info').textContent`)) + ')', page1.length === 2 &&
		/^1\u20132 of 4$/.test(await ev(`document.getElementById('pg-info').textContent`)));
	if (has.paging) check('... the page /api/v1/profiles gives, total 4', pj && J(pj.profiles.map((p) => p.id)) === J(page1) && pj.total === 4, pu);
	await T.clickSel('#pg-next');
	await idle();
	const page2 = await plist();
	st = await T.state();
	check('Next: the second page (offset=2 in the URL)', page2.length === 2 && st.offset === '2' && page2.every((x) => !page1.includes(x)));
	check('... the last one', await ev(`document.getElementById('pg-next').disabled`));
	const lab = await ev(`(document.querySelector('#plist tbody tr td.lab') || {}).textContent || ''`);
	check('... each profile with its labels', /env=(prod|dev)/.test(lab), lab);
	await T.shot('13-profiles');
	// a profile's buttons: View (the single view of its host, command, labels and time), A and B (diff sides)
	const prof = has.paging ? ((await apiJSON(lastReq('/api/v1/profiles', (p) => p.get('offset') === '2'))) || { profiles: [] }).profiles : [];
	await T.clickSel('#plist tbody tr:nth-child(1) button.open');
	await idle();
	st = await T.state();
	const pr0 = prof.find((p) => p.id === page2[0]);
	check('a profile\'s View: the single view of its selection and time (' + st.query + ' ' + st.from + '..' + st.to + ')', st.tab === 'single' &&
		/host="[^"]+"/.test(st.query) && /command="tree"/.test(st.query) && /env="(prod|dev)"/.test(st.query) &&
		(!pr0 || (st.from === String(pr0.time_start) && +st.to > pr0.time_end)) && (await T.rows('#tbl')).length > 0);
	await ev('history.back()');
	await sleep(200);
	await idle();
	st = await T.state();
	check('Back: the profile list\'s second page again', st.tab === 'profiles' && st.offset === '2' && J(await plist()) === J(page2));
	await T.clickSel('#plist tbody tr:nth-child(1) button.as-a');
	await T.clickSel('#plist tbody tr:nth-child(2) button.as-b');
	st = await T.state();
	check('a profile\'s A and B: the diff sides (' + st['a.query'] + ', ' + st['b.query'] + ')', /env=/.test(st['a.query']) && /env=/.test(st['b.query']) &&
		st['a.query'] !== st['b.query'] && /^\d+$/.test(st['a.from']) && /^\d+$/.test(st['b.from']));

	/* diff: two selections, named */
	await T.clickSel('#tabs button[data-tab="diff"]');
	await idle();
	check('the diff tab shows the sides given from the list', (await ev(`document.querySelector('#side-a .name').textContent`)).startsWith(st['a.query']) &&
		(await ev(`document.querySelector('#side-b .name').textContent`)).startsWith(st['b.query']));
	// the header's time range: both sides over it again
	await T.clickSel('#tr-btn');
	await ev(`document.getElementById('tr-from').value = ${J(localTs(F))}; document.getElementById('tr-to').value = ${J(localTs(U))}`);
	await T.clickSel('#tr-apply');
	await idle();
	st = await T.state();
	check('the time picker in the diff tab: both sides over its range', !st['a.from'] && !st['b.from'] && st.from === String(F));
	await T.setQuery('#side-a input', Q.prod);
	await T.setQuery('#side-b input', Q.dev);
	st = await T.state();
	const nameA = await ev(`document.querySelector('#side-a .name').textContent`);
	const nameB = await ev(`document.querySelector('#side-b .name').textContent`);
	check('diff side A named by its selection (' + nameA + ')', nameA.startsWith(Q.prod) && st['a.query'] === Q.prod);
	check('diff side B named by its selection (' + nameB + ')', nameB.startsWith(Q.dev) && st['b.query'] === Q.dev);
	const diffCheck = async (qa, qb, what) => {
		const ua = lastReq('/api/v1/top', (p) => p.get('query') === qa), ub = lastReq('/api/v1/top', (p) => p.get('query') === qb);
		if (!has.query) { say('skip', what + ': no query= on this server'); return T.rows('#dtbl'); }
		const A = (await apiJSON(ua)) || { functions: [] }, B = (await apiJSON(ub)) || { functions: [] };
		const dr = await T.rows('#dtbl');
		const ca = compareTop(dr, A, 1, 2), cb = compareTop(dr, B, 3, 4);
		const absent = (t, r) => !t.functions.some((f) => f.name === r.name);
		const zeros = dr.filter((r) => (absent(A, r) && (r.c[1].v || r.c[2].v)) || (absent(B, r) && (r.c[3].v || r.c[4].v)));
		const dbad = dr.filter((r) => r.c[5].v !== r.c[4].v - r.c[2].v || !near(shown(r.c[5].t.replace(/^\+/, '')), r.c[5].v));
		check(what + ': A columns equal /api/v1/top of A (' + ca.n + ' functions)', !ca.bad.length && !zeros.length, ca.bad.concat(zeros.map((r) => r.name)).slice(0, 3).join('; '));
		check(what + ': B columns equal /api/v1/top of B (' + cb.n + ' functions)', !cb.bad.length, cb.bad.slice(0, 3).join('; '));
		check(what + ': the difference B\u2212A shown', dr.length > 0 && !dbad.length, dbad.slice(0, 2).map((r) => r.name).join(' '));
		return dr;
	};
	await T.clickSel('#dviews button[data-view="both"]');
	await sleep(300);
	await diffCheck(Q.prod, Q.dev, 'diff prod/dev');
	const heads = await ev(`[...document.querySelectorAll('#dtbl th')].map((t) => t.textContent).join('|')`);
	check('the diff table has both sides and the difference (' + heads + ')', /A self/.test(heads) && /B total/.test(heads) && /\u0394/.test(heads));
	check('the diff flame graph is drawn (' + (await ev('zt.dflame.frames().length')) + ' frames)', (await ev('zt.dflame.frames().length')) > 5);
	check('... it fills its container', Math.abs((await ev('zt.dflame.frames()[0].w')) - (await ev('zt.dflame.c.parentElement.clientWidth'))) < 2);
	await T.shot('14-diff');
	await T.setQuery('#side-b input', Q.hot);
	const dr2 = await diffCheck(Q.prod, Q.hot, 'diff refreshed with B changed to command="hot"');
	check('... B now has zt_hot_a, not tree_a', dr2 && dr2.some((r) => r.name === 'zt_hot_a' && r.c[4].v > 0) && dr2.some((r) => r.name === 'tree_a' && r.c[4].v === 0));
	const bb = await ev(`(() => { const c = zt.tlB.c; c.scrollIntoView({ block: 'center' }); const b = c.getBoundingClientRect();
		const nz = zt.tlB.d.points.filter((p) => p[1] > 0); if (!nz.length) return null;
		return [b.x + zt.tlB.xOf(nz[0][0]) - 4, b.y + b.height / 2, b.x + zt.tlB.xOf(nz[nz.length - 1][0] + zt.tlB.d.step) + 4]; })()`);
	if (bb) {
		await T.drag(bb[0], bb[1], bb[2]);
		await sleep(100);
		await idle();
		st = await T.state();
		check('a brush over B\'s timeline gives B its own range (b.from=' + st['b.from'] + ')', /^\d+$/.test(st['b.from']) && /^\d+$/.test(st['b.to']) && !st['a.from']);
	} else check('B\'s timeline has samples to brush', false);
	const dnames = [await ev(`document.querySelector('#side-a .name').textContent`), await ev(`document.querySelector('#side-b .name').textContent`)];
	const drows = await ev(`[...document.querySelectorAll('#dtbl tbody tr')].slice(0, 10).map((tr) => tr.textContent).join('|')`);
	await client.Page.reload();
	await sleep(300);
	await idle();
	check('the diff URL reloaded: the same sides and table', J(dnames) === J([await ev(`document.querySelector('#side-a .name').textContent`),
		await ev(`document.querySelector('#side-b .name').textContent`)]) && drows === (await ev(`[...document.querySelectorAll('#dtbl tbody tr')].slice(0, 10).map((tr) => tr.textContent).join('|')`)));
	await T.shot('15-diff-brushed');

	/* project= in the URL: every request reads that project */
	const nreq = reqs.length;
	await go(client, base + '/?project=team1&from=' + F + '&to=' + U);
	await idle();
	const popts = await ev(`[...document.querySelectorAll('#type option')].map((o) => o.value)`);
	const preqs = reqs.slice(nreq).filter((u) => u.startsWith(base + '/api/'));
	check('project=team1: its one type in the picker (' + popts.join(' ') + ')', J(popts) === J(['page-faults']) &&
		(await T.state()).query === '{__name__="page-faults"}');
	check('... every request of the page names the project (' + preqs.length + ')', preqs.length > 0 && preqs.every((u) => new URL(u).searchParams.get('project') === 'team1'));
	check('... the project shown', (await ev(`document.getElementById('project').value`)) === 'team1');

	const foreign = reqs.filter((u) => !u.startsWith(base + '/') && !/^(about|data|blob):/.test(u));
	check('no request left the server (' + reqs.length + ' requests)', foreign.length === 0, foreign.slice(0, 3).join(' '));
	check('no script error on the page', errors.length === 0, errors.slice(0, 2).join(' | '));
	check('the token was asked once in the whole session', (await ev('zt.asked')) === 0);
});
