#!/usr/bin/env node
// SPDX-License-Identifier: GPL-2.0-or-later
// An independent pprof reader for zt's tests: gunzip with node's zlib, decode
// with pprof-format (Datadog's pure-JS decoder, not protobuf-c), check the
// profile's invariants, print a summary on stdout.
//
// Usage: node decode.js FILE
// Output, one item a line:
//   sample_type TYPE/UNIT ...     period_type TYPE/UNIT     period N
//   samples N  (Sample messages)  value[i] SUM (per value index)
//   mappings N  locations N  functions N  strings N
//   time_nanos N  duration_nanos N
//   mapping FILENAME BUILD_ID flags (F functions, f filenames, l lines, i inline)
//   function NAME FILE (sorted, unique)
//   label KEY (sorted, unique keys of sample labels)
//   stack pid=P tid=T thread=C V0 V1 ROOT;...;LEAF (inlined frames expanded, sorted)
//   comment TEXT
// Exit 0 when the file is valid, 1 (with "error: ..." on stderr) when not.
'use strict'

const fs = require('fs')
const zlib = require('zlib')
const { Profile } = require('pprof-format')

function die (msg) {
  process.stderr.write(`error: ${msg}\n`)
  process.exit(1)
}

if (process.argv.length !== 3) die('usage: node decode.js FILE')
const raw = fs.readFileSync(process.argv[2])
if (raw.length < 2 || raw[0] !== 0x1f || raw[1] !== 0x8b) die('not gzip-compressed')
const prof = Profile.decode(new Uint8Array(zlib.gunzipSync(raw)))

const B = (x) => BigInt(x ?? 0)
const strs = prof.stringTable.strings
const str = (i) => {
  const n = Number(i)
  if (!(n >= 0 && n < strs.length)) die(`string index ${i} out of range`)
  return strs[n]
}
if (strs.length === 0 || strs[0] !== '') die('string_table[0] is not ""')

function byId (list, what) {
  const m = new Map()
  for (const x of list) {
    const id = B(x.id)
    if (id === 0n) die(`${what} with id 0`)
    if (m.has(id)) die(`duplicate ${what} id ${id}`)
    m.set(id, x)
  }
  return m
}
const mappings = byId(prof.mapping, 'mapping')
const locations = byId(prof.location, 'location')
const functions = byId(prof.function, 'function')

for (const l of prof.location) {
  const mid = B(l.mappingId)
  if (mid !== 0n) {
    const m = mappings.get(mid)
    if (!m) die(`location ${l.id}: no mapping ${mid}`)
    const a = B(l.address)
    if (a < B(m.memoryStart) || a >= B(m.memoryLimit)) {
      die(`location ${l.id}: address 0x${a.toString(16)} outside its mapping`)
    }
  }
  for (const ln of l.line) {
    if (!functions.has(B(ln.functionId))) die(`location ${l.id}: no function ${ln.functionId}`)
  }
}

const vt = (v) => `${str(v.type)}/${str(v.unit)}`
const nvalues = prof.sampleType.length
const sums = new Array(nvalues).fill(0n)
const stacks = []
const labelKeys = new Set()
for (const s of prof.sample) {
  if (s.value.length !== nvalues) die(`a sample has ${s.value.length} values, not ${nvalues}`)
  s.value.forEach((v, i) => { sums[i] += B(v) })
  const names = []
  for (const id of s.locationId) {
    const l = locations.get(B(id))
    if (!l) die(`sample: no location ${id}`)
    // leaf first, innermost line first: reversed below to root first
    for (const ln of l.line) names.push(str(functions.get(B(ln.functionId)).name))
    if (l.line.length === 0) names.push(`0x${B(l.address).toString(16)}`)
  }
  const lab = {}
  for (const x of s.label) {
    const k = str(x.key)
    labelKeys.add(k)
    lab[k] = B(x.str) !== 0n ? str(x.str) : B(x.num).toString()
  }
  stacks.push(`stack pid=${lab.pid ?? '-'} tid=${lab.tid ?? '-'} thread=${lab.thread ?? '-'} ` +
    `${s.value.map((v) => B(v).toString()).join(' ')} ${names.reverse().join(';')}`)
}

const out = []
out.push(`sample_type ${prof.sampleType.map(vt).join(' ')}`)
if (prof.periodType) out.push(`period_type ${vt(prof.periodType)}`)
out.push(`period ${B(prof.period)}`)
out.push(`samples ${prof.sample.length}`)
sums.forEach((v, i) => out.push(`value[${i}] ${v}`))
out.push(`mappings ${prof.mapping.length}`)
out.push(`locations ${prof.location.length}`)
out.push(`functions ${prof.function.length}`)
out.push(`strings ${strs.length}`)
out.push(`time_nanos ${B(prof.timeNanos)}`)
out.push(`duration_nanos ${B(prof.durationNanos)}`)
for (const m of prof.mapping) {
  const fl = (m.hasFunctions ? 'F' : '') + (m.hasFilenames ? 'f' : '') +
    (m.hasLineNumbers ? 'l' : '') + (m.hasInlineFrames ? 'i' : '')
  out.push(`mapping ${str(m.filename)} ${str(m.buildId) || '-'} ${fl || '-'}`)
}
const fnames = new Set(prof.function.map((f) => `function ${str(f.name)} ${str(f.filename) || '-'}`))
out.push(...[...fnames].sort())
out.push(...[...labelKeys].sort().map((k) => `label ${k}`))
out.push(...stacks.sort())
for (const c of prof.comment) out.push(`comment ${str(c)}`)
process.stdout.write(out.join('\n') + '\n')
