// SPDX-License-Identifier: GPL-2.0-or-later
// A local S3-compatible server for zt's tests: s3rver (pinned in package.json)
// on 127.0.0.1, one bucket made at start, and a check of every request's AWS
// Signature Version 4 in front of it. s3rver 3.7.1 checks only that a V4
// request's access key id exists ("Signature version 4 calculation is
// unimplemeneted" in its lib/middleware/authentication.js), so this file
// verifies the signature itself, independently of libcurl (node's crypto, the
// canonical request as AWS documents it: `--selftest` checks it against AWS's
// published example), and the body against x-amz-content-sha256. Errors are
// S3's: SignatureDoesNotMatch, InvalidAccessKeyId, AuthorizationHeaderMalformed,
// RequestTimeTooSkewed, XAmzContentSHA256Mismatch, AccessDenied (unsigned);
// and SlowDown (503) for keys named zt-flaky* (twice) and zt-always-503*.
//
// Usage: node server.js PORT DIR LIFETIME_S BUCKET ACCESS_KEY SECRET REGION PORT_FILE
//   PORT 0: any free port; the port is written to PORT_FILE once listening.
//   The process exits by itself after LIFETIME_S seconds.
//        node server.js --selftest
'use strict';

const crypto = require('crypto');
const fs = require('fs');

const sha256 = b => crypto.createHash('sha256').update(b).digest('hex');
const hmac = (k, s) => crypto.createHmac('sha256', k).update(s).digest();

// RFC 3986 encoding as SigV4 wants it: everything but A-Za-z0-9-._~
const enc = s =>
	encodeURIComponent(s).replace(/[!'()*]/g, c => '%' + c.charCodeAt(0).toString(16).toUpperCase());
const dec = s => {
	try {
		return decodeURIComponent(s);
	} catch (e) {
		return s;
	}
};

// The signature of a request: r = { method, rawPath, rawQuery, headers (lowercase
// names), signed (names), payloadHash, amzDate, scope, secret, region, service }.
function signature(r) {
	const uri = r.rawPath.split('/').map(seg => enc(dec(seg))).join('/');
	const query = (r.rawQuery ? r.rawQuery.split('&') : [])
		.filter(p => p.length)
		.map(p => {
			const i = p.indexOf('=');
			const k = i < 0 ? p : p.slice(0, i), v = i < 0 ? '' : p.slice(i + 1);
			return [enc(dec(k)), enc(dec(v))];
		})
		.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
		.map(([k, v]) => k + '=' + v)
		.join('&');
	const headers = r.signed
		.map(n => n + ':' + String(r.headers[n]).trim().replace(/\s+/g, ' ') + '\n')
		.join('');
	const canonical = [r.method, uri, query, headers, r.signed.join(';'), r.payloadHash].join('\n');
	const toSign = ['AWS4-HMAC-SHA256', r.amzDate, r.scope, sha256(canonical)].join('\n');
	let k = hmac('AWS4' + r.secret, r.amzDate.slice(0, 8));
	k = hmac(k, r.region);
	k = hmac(k, r.service);
	k = hmac(k, 'aws4_request');
	return crypto.createHmac('sha256', k).update(toSign).digest('hex');
}

// AWS's example "GET Object" (Signature Version 4, header-based, S3 docs).
function selftest() {
	const got = signature({
		method: 'GET',
		rawPath: '/test.txt',
		rawQuery: '',
		headers: {
			host: 'examplebucket.s3.amazonaws.com',
			range: 'bytes=0-9',
			'x-amz-content-sha256': sha256(''),
			'x-amz-date': '20130524T000000Z',
		},
		signed: ['host', 'range', 'x-amz-content-sha256', 'x-amz-date'],
		payloadHash: sha256(''),
		amzDate: '20130524T000000Z',
		scope: '20130524/us-east-1/s3/aws4_request',
		secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
		region: 'us-east-1',
		service: 's3',
	});
	const want = 'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41';
	if (got !== want) {
		console.error(`selftest: signature ${got}, AWS's example says ${want}`);
		process.exit(1);
	}
	console.log('selftest: ok');
}

// The middleware: every request signed, by a known key, for this region, now.
function verifier(S3Error, keys, region) {
	const flaky = {};
	const fail = (code, message, status) => {
		const e = new S3Error(code, message);
		if (status)
			e.status = status;
		return e;
	};
	// one line per request on stdout: "signed METHOD URL" or "refused CODE METHOD URL"
	return async function logged(ctx, next) {
		const line = ctx.req.method + ' ' + ctx.req.url;
		try {
			await sigv4(ctx, () => Promise.resolve());
		} catch (e) {
			console.log(`refused ${e.code} ${line}`);
			throw e;
		}
		console.log(`signed ${line}`);
		await next();
		// s3rver 3.7.1 answers a PUT before its file is written out (its
		// store resolves before the write stream finishes): a HEAD or GET
		// right after could see part of it. Hold the answer until it is.
		if (ctx.state.putLength !== undefined && ctx.status === 200 && ctx.params.key) {
			const file = ctx.store.getResourcePath(ctx.params.bucket, ctx.params.key, 'object');
			for (let i = 0; i < 500; i++) {
				const st = await fs.promises.stat(file).catch(() => null);
				if (st && st.size === ctx.state.putLength)
					break;
				await new Promise(r => setTimeout(r, 10));
			}
		}
	};
	async function sigv4(ctx, next) {
		const h = ctx.req.headers;
		const auth = h['authorization'];
		if (!auth)
			throw fail('AccessDenied', 'Anonymous access is not allowed here');
		const m = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(auth);
		if (!m)
			throw fail('AuthorizationHeaderMalformed', 'The authorization header is malformed');
		const [id, date, credRegion, service, term] = m[1].split('/');
		if (!(id in keys))
			throw fail('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
		if (credRegion !== region)
			throw fail('AuthorizationHeaderMalformed',
				   `the region '${credRegion}' is wrong; expecting '${region}'`);
		if (service !== 's3' || term !== 'aws4_request')
			throw fail('AuthorizationHeaderMalformed', 'bad credential scope');
		const amzDate = h['x-amz-date'] || '';
		if (!/^\d{8}T\d{6}Z$/.test(amzDate) || amzDate.slice(0, 8) !== date)
			throw fail('AuthorizationHeaderMalformed', 'x-amz-date missing or not the scope\'s date');
		const t = Date.UTC(+amzDate.slice(0, 4), +amzDate.slice(4, 6) - 1, +amzDate.slice(6, 8),
				   +amzDate.slice(9, 11), +amzDate.slice(11, 13), +amzDate.slice(13, 15));
		if (Math.abs(Date.now() - t) > 15 * 60 * 1000)
			throw fail('RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
		const payloadHash = h['x-amz-content-sha256'];
		if (!payloadHash || !/^([0-9a-f]{64}|UNSIGNED-PAYLOAD)$/.test(payloadHash))
			throw fail('InvalidRequest', 'Missing or bad x-amz-content-sha256', 400);
		const signed = m[2].split(';');
		for (const n of ['host', 'x-amz-date', 'x-amz-content-sha256'])
			if (!signed.includes(n))
				throw fail('AccessDenied', `the header '${n}' must be signed`);
		if ('x-amz-security-token' in h && !signed.includes('x-amz-security-token'))
			throw fail('AccessDenied', 'x-amz-security-token must be signed');
		const sorted = [...signed].sort();
		if (signed.some((n, i) => n !== sorted[i] || !(n in h)))
			throw fail('SignatureDoesNotMatch', 'a signed header is missing or SignedHeaders is not sorted');
		const q = ctx.req.url.indexOf('?');
		const want = signature({
			method: ctx.req.method,
			rawPath: q < 0 ? ctx.req.url : ctx.req.url.slice(0, q),
			rawQuery: q < 0 ? '' : ctx.req.url.slice(q + 1),
			headers: h,
			signed,
			payloadHash,
			amzDate,
			scope: m[1].slice(id.length + 1),
			secret: keys[id],
			region,
			service,
		});
		if (!crypto.timingSafeEqual(Buffer.from(want), Buffer.from(m[3])))
			throw fail('SignatureDoesNotMatch',
				   'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
		// the body against its signed hash; s3rver's store takes a Buffer as well as a stream
		const chunks = [];
		for await (const c of ctx.req)
			chunks.push(c);
		const body = Buffer.concat(chunks);
		if (payloadHash !== 'UNSIGNED-PAYLOAD' && sha256(body) !== payloadHash)
			throw fail('XAmzContentSHA256Mismatch',
				   "The provided 'x-amz-content-sha256' header does not match what was computed.", 400);
		// faults for the client's retries: "zt-flaky" objects fail twice per
		// request line, "zt-always-503" ones always
		const line = ctx.req.method + ' ' + ctx.req.url;
		if (line.includes('/zt-always-503') ||
		    (line.includes('/zt-flaky') && (flaky[line] = (flaky[line] || 0) + 1) <= 2))
			throw fail('SlowDown', 'Please reduce your request rate.', 503);
		ctx.state.sigv4 = true;
		if (ctx.req.method === 'PUT' || ctx.req.method === 'POST') {
			ctx.req = body;
			ctx.state.putLength = body.length;
		}
		return next();
	}
}

function main(argv) {
	if (argv[0] === '--selftest')
		return selftest();
	if (argv.length !== 8) {
		console.error('usage: server.js PORT DIR LIFETIME_S BUCKET ACCESS_KEY SECRET REGION PORT_FILE');
		process.exit(2);
	}
	const [port, dir, lifetime, bucket, id, secret, region, portFile] = argv;
	const S3rver = require('s3rver');
	const S3Error = require('s3rver/lib/models/error');
	const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account');

	// the watchdog first: whatever happens, the process goes
	setTimeout(() => process.exit(0), Number(lifetime) * 1000);
	// an error s3rver leaves uncaught is told on stderr, with its stack,
	// before the process goes (the test prints it)
	process.on('uncaughtException', e => {
		console.error('s3 server: uncaught: ' + (e && e.stack ? e.stack : e));
		process.exit(1);
	});
	DUMMY_ACCOUNT.createKeyPair(id, secret);
	const server = new S3rver({
		address: '127.0.0.1',
		port: Number(port),
		directory: dir,
		silent: true,
		vhostBuckets: false,
		configureBuckets: [{ name: bucket }],
	});
	server.middleware.unshift(verifier(S3Error, { [id]: secret }, region));
	server.run().then(
		addr => {
			fs.writeFileSync(portFile + '.tmp', String(addr.port) + '\n');
			fs.renameSync(portFile + '.tmp', portFile);
		},
		err => {
			console.error('s3 server: ' + err.message);
			process.exit(1);
		});
}

main(process.argv.slice(2));
