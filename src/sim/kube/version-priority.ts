// Kubernetes orders API versions GA first, then beta, then alpha, newest first within each
// (v2 > v1 > v1beta2 > v1beta1 > v1alpha1), then anything else alphabetically.
const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function rank(version: string): [number, number, number] | undefined {
  const match = KUBE_VERSION.exec(version);
  if (!match) return undefined;
  const stability = match[2] === undefined ? 3 : match[2] === 'beta' ? 2 : 1;
  return [stability, Number(match[1]), Number(match[3] ?? 0)];
}

export function compareVersionPriority(a: string, b: string): number {
  const left = rank(a);
  const right = rank(b);
  if (left && right) {
    for (let i = 0; i < 3; i += 1) {
      const difference = (right[i] ?? 0) - (left[i] ?? 0);
      if (difference !== 0) return difference;
    }
    return 0;
  }
  if (left) return -1;
  if (right) return 1;
  return a.localeCompare(b);
}
