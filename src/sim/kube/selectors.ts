// labelSelector and fieldSelector as the real server parses them. A malformed selector is
// a 400 BadRequest naming the problem.
import { badRequest } from './api-error.js';
import type { KubeObject } from './kube-object.js';

type LabelRequirement =
  | { key: string; op: 'exists' | '!exists' }
  | { key: string; op: '=' | '!='; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] };

export type ObjectPredicate = (object: KubeObject) => boolean;

const LABEL_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

function checkKey(key: string, selector: string): string {
  if (!LABEL_KEY.test(key)) throw badRequest(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
  return key;
}

function checkValue(value: string, selector: string): string {
  if (!LABEL_VALUE.test(value) || value.length > 63) {
    throw badRequest(`unable to parse requirement: invalid label value "${value}" in selector "${selector}"`);
  }
  return value;
}

function parseLabelRequirement(part: string, selector: string): LabelRequirement {
  const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
  if (setMatch) {
    const values = (setMatch[3] ?? '').split(',').map((v) => checkValue(v.trim(), selector));
    return { key: checkKey(setMatch[1] ?? '', selector), op: setMatch[2] === 'in' ? 'in' : 'notin', values };
  }
  if (part.startsWith('!')) return { key: checkKey(part.slice(1).trim(), selector), op: '!exists' };
  const equality = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
  if (equality) {
    return {
      key: checkKey(equality[1] ?? '', selector),
      op: equality[2] === '!=' ? '!=' : '=',
      value: checkValue((equality[3] ?? '').trim(), selector),
    };
  }
  return { key: checkKey(part, selector), op: 'exists' };
}

function labelMatches(requirement: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, requirement.key);
  const value = labels[requirement.key];
  switch (requirement.op) {
    case 'exists':
      return has;
    case '!exists':
      return !has;
    case '=':
      return has && value === requirement.value;
    case '!=':
      return !has || value !== requirement.value;
    case 'in':
      return has && requirement.values.includes(value ?? '');
    case 'notin':
      return !has || !requirement.values.includes(value ?? '');
  }
}

export function parseLabelSelector(selector: string | null): ObjectPredicate | undefined {
  if (!selector || !selector.trim()) return undefined;
  const requirements = splitTopLevel(selector).map((part) => parseLabelRequirement(part, selector));
  return (object) => {
    const labels = object.metadata.labels ?? {};
    return requirements.every((r) => labelMatches(r, labels));
  };
}

function fieldValue(object: KubeObject, path: string): string {
  let current: unknown = object;
  for (const segment of path.split('.')) {
    if (typeof current !== 'object' || current === null) return '';
    current = (current as Record<string, unknown>)[segment];
  }
  if (current === undefined || current === null) return '';
  return typeof current === 'object' ? '' : String(current);
}

/** Parses a fieldSelector; `supported` lists the labels the resource accepts beyond metadata.name/namespace. */
export function parseFieldSelector(selector: string | null, supported: string[]): ObjectPredicate | undefined {
  if (!selector || !selector.trim()) return undefined;
  const allowed = new Set(['metadata.name', 'metadata.namespace', ...supported]);
  const requirements = splitTopLevel(selector).map((part) => {
    const match = /^([^=!]+)(==|=|!=)(.*)$/.exec(part);
    if (!match) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const field = (match[1] ?? '').trim();
    if (!allowed.has(field)) throw badRequest(`field label not supported: ${field}`);
    return { field, negate: match[2] === '!=', value: (match[3] ?? '').trim() };
  });
  return (object) => requirements.every((r) => (fieldValue(object, r.field) === r.value) !== r.negate);
}

export function combinePredicates(...predicates: Array<ObjectPredicate | undefined>): ObjectPredicate | undefined {
  const present = predicates.filter((p): p is ObjectPredicate => p !== undefined);
  if (present.length === 0) return undefined;
  return (object) => present.every((p) => p(object));
}
