import { describe, expect, it } from 'vitest';
import { allocatedBytes, type AllocationNode } from '../../bench/support/allocation-profile.js';
import { frameName } from '../../bench/support/profile-frames.js';

function node(
  functionName: string,
  url: string,
  selfSize: number,
  children: AllocationNode[] = [],
): AllocationNode {
  return { callFrame: { functionName, url, lineNumber: 9 }, selfSize, children };
}

describe('allocation profiles', () => {
  it('adds up every sampled byte of the tree, at any depth', () => {
    const profile = {
      head: node('(root)', '', 0, [
        node('observe', 'file:///work/main/src/reconcilers/agentdeployment/observe.js', 512, [
          node('claimantsOf', 'file:///work/main/src/reconcilers/agentdeployment/setup.js', 256),
        ]),
        node('', 'node:internal/streams/readable', 1024),
      ]),
    };
    expect(allocatedBytes(profile)).toBe(1792);
  });

  it('names a function by its name and its place in the project, an anonymous one as such', () => {
    expect(
      frameName(node('observe', 'file:///work/main/src/reconcilers/agentdeployment/observe.js', 0)),
    ).toBe('observe src/reconcilers/agentdeployment/observe.js:10');
    expect(frameName(node('', 'node:internal/streams/readable', 0))).toBe(
      '(anonymous) node:internal/streams/readable:10',
    );
  });
});
