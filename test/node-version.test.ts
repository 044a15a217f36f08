import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
/** The Node that npm scripts run: the dev dependency `node`, first on PATH in every npm script. */
const pinned = `v${pkg.devDependencies.node}`;

describe('the Node the tests run on', () => {
  it("is the dev dependency's, in this process and in the `node` a child process finds on PATH", () => {
    expect(process.version).toBe(pinned);
    expect(execFileSync('node', ['-p', 'process.version'], { encoding: 'utf8' }).trim()).toBe(pinned);
  });

  it("is the images' line, which package.json's engines asks for", () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8'))?.[1];
    const major = pinned.slice(1).split('.')[0];
    expect(image).toBe(major);
    expect(pkg.engines.node).toBe(`>=${major}`);
  });
});
