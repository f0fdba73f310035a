// npm run bench:compare -- [<commit>] [--pairs N] [--only fanOut,durable,agents,activation,sessions] [--fresh]
// (defaults: 99d4058, 4 pairs, every workload; --fresh exports the baseline again)
//
// Runs the same workloads (bench/workloads/) against a baseline commit (default 99d4058) and
// against this checkout as it is on disk, in the same run, and prints each figure of both with
// their ratio (now / baseline) beside its target. Ratios, never PASS/FAIL: a figure never makes
// this exit non-zero. How it measures:
//  - the baseline is exported into a temporary folder and kept for the next run (baselineTree.mjs);
//  - each tree is built for production by its own esbuild.mjs; the bundles' sizes and what each
//    part of the code adds to the start bundle come from esbuild's metafile (bundles.mjs);
//  - the workloads drive each tree's core compiled as the extension ships it (one esbuild
//    bundle of its doors, without keepNames: coreBundle.mjs), not its sources under tsx;
//  - for each of N pairs, each workload runs once per tree, each run a fresh node process
//    (--expose-gc), the two runs of a pair back to back, the baseline first in even pairs and
//    this checkout first in odd ones, so a change of load on a shared machine hits both alike;
//  - the baseline and now columns are the medians over pairs, the ratio is the median of the
//    pairs' ratios, and the range is the lowest and highest pair ratio.
// The load average at the start and the end is printed with the table: on a busy machine
// compare ratios, and read times with the load beside them.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { prepareBaseline, resolveCommit } from './compare/baselineTree.mjs';
import { measureBundles } from './compare/bundles.mjs';
import { buildCoreBundle } from './compare/coreBundle.mjs';

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const RUN = path.join(REPO, 'bench', 'workloads', 'run.ts');
const TSX = createRequire(path.join(REPO, 'package.json')).resolve('tsx/cjs');
const WORKLOADS = ['fanOut', 'durable', 'agents', 'activation', 'sessions'];
const KIB = 1 / 1024;

/** Each row: where its value comes from, how it is shown, and its target (a text, never checked). */
const FIGURES = [
  { key: 'w1WallMs', label: 'W1 fan-out wall, K=1,000 x 3 calls, in memory', unit: 'ms', target: '<= baseline (ratio <= 1.00)' },
  { key: 'w1CpuMs', label: 'W1 fan-out CPU time, until the root is idle', unit: 'ms', target: '' },
  { key: 'overheadPerCallUs', label: 'overhead per model call, fan-out (subagent made and ended)', unit: 'µs', target: '< 30 µs' },
  { key: 'w1WarmWallMs', label: 'W1 wall, warm (no forced full collection before the round)', unit: 'ms', target: '' },
  { key: 'overheadWarmPerCallUs', label: 'overhead per model call, warm', unit: 'µs', target: '' },
  { key: 'turnOverheadUs', label: 'overhead per one-call turn', unit: 'µs', target: '< 15 µs' },
  { key: 'turnOverheadCpuUs', label: 'overhead per one-call turn, CPU time', unit: 'µs', target: '' },
  { key: 'durableOnDiskRatio', label: 'durable / in-memory fan-out, until every session on disk', unit: 'x', digits: 2, target: '<= 1.5x' },
  { key: 'durableWarmOnDiskRatio', label: 'the same, warm (no forced full collection before a round)', unit: 'x', digits: 2, target: '' },
  { key: 'durableSecondOnDiskRatio', label: "a window's second fan-out into the same store, until on disk / in memory", unit: 'x', digits: 2, target: '' },
  { key: 'durableFloorRatio', label: 'the disk alone: in memory + creating 1,001 files, / in memory', unit: 'x', digits: 2, target: '' },
  { key: 'durableOverFloor', label: 'durable until on disk / that floor', unit: 'x', digits: 2, target: '' },
  { key: 'durableIdleRatio', label: 'durable / in-memory fan-out, until the root is idle', unit: 'x', digits: 2, target: '' },
  { key: 'idleAgentBytes', label: 'heap per live idle agent (W3)', unit: 'KiB', scale: KIB, digits: 2, target: '<= 3 KiB' },
  { key: 'pausedAgentBytes', label: 'heap per paused (stopped) agent', unit: 'KiB', scale: KIB, digits: 2, target: '<= 2 KiB' },
  { key: 'abortToModelUs', label: 'abort -> model sees it (median)', unit: 'µs', target: '<= 30 µs' },
  { key: 'abortToSettledUs', label: 'abort -> settled (median)', unit: 'µs', target: '<= 70 µs' },
  { key: 'activationCpuMs', label: 'activation CPU, load until Arbor started (a later start)', unit: 'ms', target: '<= 50 ms' },
  { key: 'activateToStartedCpuMs', label: 'of which from the activate() call on', unit: 'ms', target: '' },
  { key: 'activationFirstCpuMs', label: 'activation CPU, the first start of an install (no code cache yet)', unit: 'ms', target: '' },
  { key: 'startBytes', label: 'production bundle loaded at start', unit: 'KiB', scale: KIB, target: '<= 350 KiB' },
  { key: 'shippedBytes', label: 'all production bundles (dist, media/dist)', unit: 'KiB', scale: KIB, target: '' },
  { key: 'sessionPerTurnEventsPerS', label: 'session append, flush at each turn end (higher is better)', unit: 'events/s', target: '' },
  { key: 'sessionLoadMs', label: 'loadSession of a 10,000-event session', unit: 'ms', target: '' },
  { key: 'historyColdMs', label: 'History listing, 2,000 sessions, no index (new window)', unit: 'ms', target: '' },
  { key: 'historyWarmMs', label: 'History listing, 2,000 sessions, index on disk', unit: 'ms', target: '' },
  { key: 'historyRelistMs', label: 'History listing again by the same store', unit: 'ms', target: '' },
];

function parseArgs(argv) {
  const options = { commit: '99d4058', pairs: 4, only: WORKLOADS, fresh: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--pairs') options.pairs = Math.max(1, Number.parseInt(argv[++i], 10) || 1);
    else if (arg === '--only') {
      options.only = (argv[++i] ?? '').split(',');
      const unknown = options.only.filter((w) => !WORKLOADS.includes(w));
      if (unknown.length > 0) throw new Error(`unknown workload ${unknown.join(', ')}: the workloads are ${WORKLOADS.join(', ')}`);
    }
    else if (arg === '--fresh') options.fresh = true;
    else if (!arg.startsWith('--')) options.commit = arg;
    else throw new Error(`unknown option ${arg}`);
  }
  return options;
}

const log = (line) => process.stderr.write(`${line}\n`);
const load = () => os.loadavg().map((v) => v.toFixed(2)).join(' ');

function median(values) {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Where the durable workload's session folders go, removed only after the last run: deleting
 * thousands of files slows the files created in the next seconds on a disk that discards freed
 * blocks, which would charge one run for the cleanup of the one before (bench/workloads/fanOut.ts).
 */
const SCRATCH = path.join(os.tmpdir(), 'arbor-bench-compare', `scratch-${process.pid}`);

/** One run of one workload against one tree, in a fresh process: its figures, or its error. */
function runWorkload(root, workload, coreBundle) {
  const t0 = Date.now();
  const env = { ...process.env, ARBOR_BENCH_SCRATCH: SCRATCH, ...(coreBundle ? { ARBOR_BENCH_CORE: coreBundle } : {}) };
  const run = spawnSync(process.execPath, ['--expose-gc', '--require', TSX, RUN, root, workload], { cwd: root, encoding: 'utf8', timeout: 300_000, env });
  const last = (run.stdout || '').trim().split('\n').pop();
  if (run.status === 0 && last) return { ...JSON.parse(last), [`${workload}Seconds`]: (Date.now() - t0) / 1000 };
  return { error: `${workload} failed (${run.status ?? run.signal}): ${(run.stderr || '').trim().split('\n').slice(0, 3).join(' ')}` };
}

function format(value, figure) {
  if (!Number.isFinite(value)) return 'n/a';
  const v = value * (figure.scale ?? 1);
  return `${v.toFixed(figure.digits ?? (Math.abs(v) >= 100 ? 0 : 1))} ${figure.unit}`;
}

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.map(line)].join('\n');
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  const startLoad = load();
  const started = Date.now();
  const sha = resolveCommit(REPO, options.commit);
  const baseline = prepareBaseline(REPO, sha, { fresh: options.fresh, log });
  const trees = [
    { name: 'baseline', root: baseline.root },
    { name: 'now', root: REPO },
  ];
  const notes = [...baseline.notes];
  const samples = { baseline: [], now: [] };
  for (const tree of trees) {
    log(`${tree.name}: production build`);
    const bundles = measureBundles(tree.root);
    tree.bundles = bundles;
    if (bundles.error) notes.push(`${tree.name}: ${bundles.error}`);
    try {
      tree.core = buildCoreBundle(tree.root);
    } catch (err) {
      // Its workloads then load its sources through tsx, which the note says.
      notes.push(`${tree.name}: its core could not be compiled (${err.message.split('\n')[0]}); its workloads ran its sources under tsx`);
    }
  }
  for (let pair = 0; pair < options.pairs; pair++) {
    const order = pair % 2 === 0 ? trees : [...trees].reverse();
    const figures = { baseline: {}, now: {} };
    for (const workload of options.only) {
      for (const tree of order) {
        const result = runWorkload(tree.root, workload, tree.core);
        if (result.error) notes.push(`${tree.name}, pair ${pair + 1}: ${result.error}`);
        else Object.assign(figures[tree.name], result);
      }
    }
    samples.baseline.push(figures.baseline);
    samples.now.push(figures.now);
    log(`pair ${pair + 1}/${options.pairs} done (${((Date.now() - started) / 1000).toFixed(0)} s, load ${load()})`);
  }
  const rows = FIGURES.map((figure) => {
    const bundle = figure.key === 'startBytes' || figure.key === 'shippedBytes';
    const base = bundle ? [trees[0].bundles[figure.key]] : samples.baseline.map((s) => s[figure.key]);
    const now = bundle ? [trees[1].bundles[figure.key]] : samples.now.map((s) => s[figure.key]);
    const ratios = base.map((b, i) => now[i] / b).filter(Number.isFinite);
    const ratio = median(ratios);
    const range = ratios.length > 1 ? `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}` : '';
    return [figure.label, format(median(base), figure), format(median(now), figure), Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : 'n/a', figure.target, range];
  });
  console.log(`bench:compare: baseline ${sha.slice(0, 7)} (${options.commit}) against this checkout, ${options.pairs} pairs, node ${process.version}, ${os.cpus().length} cores`);
  console.log(`load average at start ${startLoad}, at end ${load()}; ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  console.log(table(['figure', 'baseline', 'now', 'ratio', 'target', 'pair ratios'], rows));
  console.log(`\n${peersTable(samples.now)}`);
  console.log(`\n${partsTable(trees[0].bundles, trees[1].bundles)}`);
  console.log('\nActivation and heap run against a stand-in vscode module in plain Node, not the real extension host. KiB = 1,024 bytes.');
  for (const note of notes) console.log(`note: ${note}`);
  const record = path.join(os.tmpdir(), 'arbor-bench-compare', 'last-run.json');
  fs.writeFileSync(record, JSON.stringify({ sha, options, startLoad, endLoad: load(), samples, bundles: { baseline: trees[0].bundles, now: trees[1].bundles }, notes }, null, 1));
  console.log(`every pair's figures: ${record}`);
}

/**
 * The peers' figures as published for the same workloads (W1: the K=1,000 fan-out, W3: a live
 * idle agent), quoted, not measured here: beside them this run's figure for this checkout.
 */
const PEERS = [
  { key: 'w1WallMs', label: 'W1 fan-out wall', figures: { '@openai/agents': '33 s', 'LangGraph.js': '9.5 s', 'Arbor (published)': '0.27 s' }, show: (v) => `${(v / 1000).toFixed(2)} s` },
  { key: 'idleAgentBytes', label: 'W3 heap per live idle agent', figures: { '@openai/agents': '16.2 KB', 'LangGraph.js': '24.5 KB', 'Arbor (published)': '13.8 KB' }, show: (v) => `${(v / 1024).toFixed(1)} KiB` },
];

function peersTable(samples) {
  const names = Object.keys(PEERS[0].figures);
  const rows = PEERS.map((peer) => {
    const value = median(samples.map((s) => s[peer.key]));
    return [peer.label, ...names.map((name) => peer.figures[name]), Number.isFinite(value) ? peer.show(value) : 'n/a'];
  });
  return `against the peers' published figures (theirs quoted, not measured here):\n${table(['workload', ...names, 'now (this run)'], rows)}`;
}

/**
 * What each part of the code adds to the start bundle, largest first (esbuild's metafile), every
 * part, then the dependencies (node_modules) and Arbor's own code each in all.
 */
function partsTable(base, now) {
  if (!now.parts || !base.parts) return 'start bundle by part: n/a (a production build failed)';
  const kib = (bytes) => (bytes ? `${(bytes / 1024).toFixed(1)} KiB` : '-');
  const larger = (name) => Math.max(base.parts[name] ?? 0, now.parts[name] ?? 0);
  const names = Object.keys({ ...base.parts, ...now.parts }).sort((a, b) => larger(b) - larger(a));
  const row = (label, of) => [label, kib(of(base.parts)), kib(of(now.parts)), kib(of(now.parts) - of(base.parts))];
  const sumOf = (keep) => (parts) => Object.entries(parts).reduce((sum, [name, bytes]) => sum + (keep(name) ? bytes : 0), 0);
  const isOwn = (name) => name.startsWith('src/') || name.startsWith('media/');
  const rows = names.filter((name) => larger(name) >= 52).map((name) => row(name, (parts) => parts[name] ?? 0));
  rows.push(row('all dependencies (node_modules)', sumOf((name) => !isOwn(name) && name !== 'other')), row("Arbor's own code (src)", sumOf(isOwn)));
  return `start bundle by part (bytes in the output, metafile):\n${table(['part', 'baseline', 'now', 'change'], rows)}`;
}

// A usage or setup error (an unknown commit, a failed export) ends the run; a figure never does.
try {
  main();
} catch (err) {
  console.error(`bench:compare: ${err.message}`);
  process.exitCode = 2;
} finally {
  fs.rmSync(SCRATCH, { recursive: true, force: true });
}
