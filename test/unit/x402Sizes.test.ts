/**
 * The x402 seller stays in pieces the size of `@x402/hono`'s (issue 27 §2): no file in src/x402 over 400 lines, no
 * class over 250 lines, no function over 5 parameters (pass an options object instead).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..', 'src', 'x402');
const files = readdirSync(ROOT, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile())
  .map((e) => path.join(e.parentPath, e.name));

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

describe('src/x402 sizes (issue 27 §2)', () => {
  it('finds the x402 sources', () => {
    expect(files.some((f) => f.endsWith('gateway.ts'))).toBe(true);
  });

  it('has no file over 400 lines', () => {
    const over = files
      .map((f) => ({ file: path.relative(ROOT, f), lines: lineCount(readFileSync(f, 'utf8')) }))
      .filter((f) => f.lines > 400);
    expect(over).toEqual([]);
  });

  it('has no class over 250 lines and no function over 5 parameters', () => {
    const found: string[] = [];
    for (const file of files.filter((f) => f.endsWith('.ts'))) {
      const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const line = (pos: number) => src.getLineAndCharacterOfPosition(pos).line;
      const visit = (node: ts.Node): void => {
        const where = `${path.relative(ROOT, file)}:${line(node.getStart()) + 1}`;
        if (ts.isClassLike(node) && line(node.getEnd()) - line(node.getStart()) + 1 > 250) found.push(`class ${where}`);
        if (ts.isFunctionLike(node) && node.parameters.length > 5) found.push(`function ${where}`);
        ts.forEachChild(node, visit);
      };
      visit(src);
    }
    expect(found).toEqual([]);
  });
});
