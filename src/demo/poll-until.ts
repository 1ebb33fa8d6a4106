// The demo's waits on a cluster: ask again every interval until the check holds, or fail at the
// deadline naming what it waited for (computed then, so that it can say the last state seen).
export async function pollUntil(
  deadline: number,
  what: () => string,
  intervalMs: number,
  check: () => Promise<boolean>,
): Promise<void> {
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
