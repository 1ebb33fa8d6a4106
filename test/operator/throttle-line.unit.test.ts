// Reconciles throttled by one budget get places in a line spaced at the budget's rate, so
// that they come back one by one instead of all at the next token.
import { describe, expect, it } from 'vitest';
import { ThrottleLine } from '../../src/reconcilers/agentdeployment/throttle-line.js';
import { FakeClock } from '../runtime/support/fake-clock.js';

describe('ThrottleLine', () => {
  it('spaces reconciles throttled together at the budget rate, after the budget wait', () => {
    const clock = new FakeClock();
    const line = new ThrottleLine(() => 20, clock);
    expect([1, 2, 3, 4].map(() => line.place(30))).toEqual([30, 80, 130, 180]);
    expect(line.lengthMs).toBe(230);
  });

  it('a later placement waits behind the earlier ones, minus the time that passed', async () => {
    const clock = new FakeClock();
    const line = new ThrottleLine(() => 10, clock);
    line.place(0);
    line.place(0);
    await clock.advance(150);
    // Slots at 0 and 100 are given out; the next is at 200, 50 ms from now.
    expect(line.place(0)).toBe(50);
  });

  it('an idle line gives the budget wait alone', async () => {
    const clock = new FakeClock();
    const line = new ThrottleLine(() => 100, clock);
    line.place(5);
    await clock.advance(1_000);
    expect(line.lengthMs).toBe(0);
    expect(line.place(7)).toBe(7);
  });

  it('follows a change of rate at the next placement', () => {
    const clock = new FakeClock();
    let rate = 100;
    const line = new ThrottleLine(() => rate, clock);
    expect(line.place(0)).toBe(0);
    rate = 1;
    expect(line.place(0)).toBe(10);
    expect(line.place(0)).toBe(1_010);
  });

  it("gives one namespace's creates the places the line always gave", () => {
    const clock = new FakeClock();
    const line = new ThrottleLine(() => 20, clock);
    expect([1, 2, 3, 4].map(() => line.place(30, 'team-b'))).toEqual([30, 80, 130, 180]);
    // Other calls than creates take their places after every place given out.
    expect(line.place(0)).toBe(230);
  });

  it("starts a namespace with no place waiting at the next token, not behind another's flood", () => {
    const clock = new FakeClock();
    const line = new ThrottleLine(() => 10, clock);
    for (let i = 0; i < 50; i += 1) line.place(0, 'team-b');
    // The flood holds places for the next 5 s; the victim's create comes back at the next token.
    expect(line.place(0, 'team-a')).toBe(0);
    // From then on the two namespaces' new places share the tokens: every other one each.
    expect(line.place(0, 'team-a')).toBe(200);
    expect(line.place(0, 'team-a')).toBe(400);
    expect(line.place(0, 'team-b')).toBe(5_000);
    expect(line.place(0, 'team-b')).toBe(5_200);
  });

  it('forgets a namespace once its places are past: the other is alone again', async () => {
    const clock = new FakeClock();
    const line = new ThrottleLine(() => 10, clock);
    line.place(0, 'team-a');
    line.place(0, 'team-b');
    line.place(0, 'team-b');
    await clock.advance(1_000);
    expect(line.place(0, 'team-b')).toBe(0);
    expect(line.place(0, 'team-b')).toBe(100);
  });
});
