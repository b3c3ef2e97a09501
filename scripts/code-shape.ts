/**
 * The code-shape figures issue 16 asks for: import cycles between files (madge) and between module folders
 * (src/modules/<name>, src/api, src/chain, ...), and hand-written functions longer than a limit in src/modules
 * (TypeScript's own parser: every function, method, arrow function and function expression, by line span).
 *
 *   npx tsx scripts/code-shape.ts [--max-lines 60] [--check] [--root <dir with src/ and tsconfig.json>]
 *
 * With --check it exits 1 when there is a cycle or an over-long function without a `// long:` reason on the
 * line above it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import madge from 'madge';
import ts from 'typescript';

const args = process.argv.slice(2);
const root = args.includes('--root') ? path.resolve(args[args.indexOf('--root') + 1]!) : path.resolve(import.meta.dirname, '..');
const maxLines = Number(args[args.indexOf('--max-lines') + 1]) || 60;
const check = args.includes('--check');

const graph = await madge(path.join(root, 'src'), { fileExtensions: ['ts'], tsConfig: path.join(root, 'tsconfig.json') });
const fileCycles = graph.circular();

/** src/modules/orders/repo.ts → modules/orders; src/api/routes/x.ts → api; src/app.ts → (root). */
const folderOf = (f: string) => {
  const parts = f.split('/');
  if (parts[0] === 'modules' && parts.length > 2) return `modules/${parts[1]}`;
  return parts.length > 1 ? parts[0]! : f.replace(/\.ts$/, ''); // each top-level file (config, services, app) is its own node
};
const deps = graph.obj();
const folderEdges = new Map<string, Map<string, string>>();
for (const [from, tos] of Object.entries(deps)) {
  for (const to of tos) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (a === b) continue;
    if (!folderEdges.has(a)) folderEdges.set(a, new Map());
    if (!folderEdges.get(a)!.has(b)) folderEdges.get(a)!.set(b, `${from} → ${to}`);
  }
}
const folderCycles = stronglyConnected(folderEdges).filter((c) => c.length > 1);

type Long = { file: string; line: number; name: string; lines: number; reason: string | null };
const long: Long[] = [];
for (const rel of Object.keys(deps).filter((f) => f.startsWith('modules/') && !f.endsWith('.test.ts'))) {
  const file = path.join(root, 'src', rel);
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = text.split('\n');
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const span = end - start + 1;
      if (span > maxLines) {
        const above = lines.slice(Math.max(0, start - 3), start).join('\n');
        const reason = /\/\/\s*long:\s*(.+)/.exec(above)?.[1] ?? null;
        long.push({ file: `src/${rel}`, line: start + 1, name: nameOf(node), lines: span, reason });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

console.log(`file cycles: ${fileCycles.length}`);
for (const c of fileCycles) console.log(`  ${c.join(' → ')}`);
console.log(`module-folder cycles: ${folderCycles.length}`);
for (const c of folderCycles) {
  console.log(`  ${c.join(' ⇄ ')}`);
  for (const a of c) for (const b of c) { const why = folderEdges.get(a)?.get(b); if (why) console.log(`      ${why}`); }
}
console.log(`functions over ${maxLines} lines in src/modules: ${long.length} (${long.filter((l) => !l.reason).length} without a reason)`);
for (const l of long.sort((a, b) => b.lines - a.lines)) console.log(`  ${String(l.lines).padStart(4)}  ${l.file}:${l.line}  ${l.name}${l.reason ? `  (long: ${l.reason})` : ''}`);

if (check && (fileCycles.length || folderCycles.length || long.some((l) => !l.reason))) process.exit(1);

function nameOf(node: ts.SignatureDeclaration): string {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const p = node.parent;
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && ts.isPropertyAssignment(p) && ts.isIdentifier(p.name)) return p.name.text;
  return '(anonymous)';
}

/** Tarjan's algorithm over the folder graph. */
function stronglyConnected(edges: Map<string, Map<string, string>>): string[][] {
  const nodes = new Set<string>([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])]);
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      out.push(c.sort());
    }
  };
  for (const v of nodes) if (!idx.has(v)) strong(v);
  return out;
}
