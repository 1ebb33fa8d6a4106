// CRD-time checks of a version's openAPIV3Schema, as the apiextensions-apiserver runs them
// on CRD create/update: structurality (types everywhere, no structure inside
// allOf/anyOf/oneOf/not, restricted root metadata), the CRD-only restrictions
// (uniqueItems, additionalProperties: false, $ref), list-type consistency, valid defaults
// and x-kubernetes-validations that compile. Paths read like the real server's
// (`spec.versions[0].schema.openAPIV3Schema.properties[spec].type`).
import { compilePattern, compileSchema, parseCel, referencesOldSelf } from './compiled-schema.js';
import { forbidden, invalid, notSupported, required, type FieldCause } from './field-errors.js';
import { validateValue } from './openapi-validation.js';
import type { JSONSchemaProps } from './schema-types.js';

type Level = 'root' | 'item' | 'field';

const VALID_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const NESTED_FORBIDDEN_GENERICS: [keyof JSONSchemaProps, string][] = [
  ['type', 'must be empty to be structural'],
  ['additionalProperties', 'must be undefined to be structural'],
  ['default', 'must be undefined to be structural'],
  ['title', 'must be empty to be structural'],
  ['description', 'must be empty to be structural'],
  ['nullable', 'must be false to be structural'],
  ['externalDocs', 'must be undefined to be structural'],
  ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', 'must be false to be structural'],
  ['x-kubernetes-int-or-string', 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', 'must be empty to be structural'],
  ['x-kubernetes-list-type', 'must be undefined to be structural'],
  ['x-kubernetes-map-type', 'must be undefined to be structural'],
  ['x-kubernetes-validations', 'must be empty to be structural'],
];

interface Context {
  causes: FieldCause[];
}

function isIntOrStringAnyOf(schema: JSONSchemaProps): boolean {
  const anyOf = schema.anyOf;
  return anyOf?.length === 2 && anyOf[0]?.type === 'integer' && anyOf[1]?.type === 'string' && Object.keys(anyOf[0]).length === 1 && Object.keys(anyOf[1]).length === 1;
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== false && value !== '' && !(Array.isArray(value) && value.length === 0);
}

function checkNested(schema: JSONSchemaProps, path: string, ctx: Context): void {
  for (const [key, detail] of NESTED_FORBIDDEN_GENERICS) {
    if (isSet(schema[key])) ctx.causes.push(forbidden(`${path}.${key}`, detail));
  }
  if (schema.properties?.['metadata'] !== undefined) {
    ctx.causes.push(forbidden(`${path}.properties[metadata]`, 'must not be specified in a nested context'));
  }
  for (const [name, sub] of Object.entries(schema.properties ?? {})) checkNested(sub, `${path}.properties[${name}]`, ctx);
  if (schema.items !== undefined && !Array.isArray(schema.items)) checkNested(schema.items, `${path}.items`, ctx);
  checkJunctors(schema, path, ctx, false);
}

function checkJunctors(schema: JSONSchemaProps, path: string, ctx: Context, skipIntOrStringAnyOf: boolean): void {
  if (!skipIntOrStringAnyOf) (schema.anyOf ?? []).forEach((sub, i) => checkNested(sub, `${path}.anyOf[${i}]`, ctx));
  (schema.allOf ?? []).forEach((sub, i) => checkNested(sub, `${path}.allOf[${i}]`, ctx));
  (schema.oneOf ?? []).forEach((sub, i) => checkNested(sub, `${path}.oneOf[${i}]`, ctx));
  if (schema.not !== undefined) checkNested(schema.not, `${path}.not`, ctx);
}

function checkRootMetadata(metadata: JSONSchemaProps, path: string, ctx: Context): void {
  if (metadata.type !== undefined && metadata.type !== 'object') ctx.causes.push(invalid(`${path}.type`, metadata.type, 'must be object'));
  const allowed = new Set(['type', 'properties']);
  const extraKeys = Object.keys(metadata).filter((k) => !allowed.has(k));
  const extraProps = Object.keys(metadata.properties ?? {}).filter((k) => k !== 'name' && k !== 'generateName');
  if (extraKeys.length > 0 || extraProps.length > 0) {
    ctx.causes.push(forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
}

function checkListType(schema: JSONSchemaProps, path: string, ctx: Context): void {
  const listType = schema['x-kubernetes-list-type'];
  const keys = schema['x-kubernetes-list-map-keys'];
  if (listType !== undefined) {
    if (!['atomic', 'set', 'map'].includes(listType)) {
      ctx.causes.push(notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
    } else if (schema.type !== 'array') {
      ctx.causes.push(invalid(`${path}.type`, schema.type ?? '', 'must be array if x-kubernetes-list-type is specified'));
    }
  }
  const mapType = schema['x-kubernetes-map-type'];
  if (mapType !== undefined && !['granular', 'atomic'].includes(mapType)) {
    ctx.causes.push(notSupported(`${path}.x-kubernetes-map-type`, mapType, ['granular', 'atomic']));
  }
  if (keys !== undefined && keys.length > 0 && listType !== 'map') {
    ctx.causes.push(forbidden(`${path}.x-kubernetes-list-map-keys`, 'must only be used if x-kubernetes-list-type is "map"'));
  }
  const items = Array.isArray(schema.items) ? undefined : schema.items;
  if (listType === 'map') {
    if (keys === undefined || keys.length === 0) {
      ctx.causes.push(required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    }
    if (items !== undefined && items.type !== 'object') {
      ctx.causes.push(invalid(`${path}.items.type`, items.type ?? '', 'must be object if parent array\'s x-kubernetes-list-type is map'));
    }
    for (const [i, key] of (keys ?? []).entries()) {
      const keySchema = items?.properties?.[key];
      if (keySchema === undefined) {
        ctx.causes.push(invalid(`${path}.x-kubernetes-list-map-keys[${i}]`, key, 'entries must all be names of item properties'));
      } else if (!(items?.required ?? []).includes(key) && keySchema.default === undefined) {
        ctx.causes.push(required(`${path}.items.properties[${key}].default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
      }
    }
  }
  if (listType === 'set' && items !== undefined && (items.type === 'object' || items.type === 'array') && items['x-kubernetes-map-type'] !== 'atomic' && items['x-kubernetes-list-type'] !== 'atomic') {
    ctx.causes.push(invalid(`${path}.items`, items.type, `must be atomic as item of a list with x-kubernetes-list-type=set`));
  }
}

function fieldPathResolves(schema: JSONSchemaProps, fieldPath: string): boolean {
  const segments = fieldPath.replace(/^\./, '').replace(/\['([^']*)'\]/g, '.$1').split('.');
  let current: JSONSchemaProps | undefined = schema;
  for (const segment of segments) {
    if (current === undefined || segment === '') return false;
    if (current.properties !== undefined) current = current.properties[segment];
    else if (typeof current.additionalProperties === 'object') current = current.additionalProperties;
    else return false;
  }
  return current !== undefined;
}

function checkValidations(schema: JSONSchemaProps, path: string, correlatable: boolean, uncorrelatableAt: string, ctx: Context): void {
  (schema['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
    const rulePath = `${path}.x-kubernetes-validations[${i}]`;
    if (rule.rule === undefined || rule.rule.trim() === '') {
      ctx.causes.push(required(`${rulePath}.rule`, 'rule is not specified'));
      return;
    }
    const program = parseCel(rule.rule);
    let usesOldSelf = false;
    if (typeof program === 'string') {
      ctx.causes.push(invalid(`${rulePath}.rule`, rule.rule, `compilation failed: ERROR: ${program}`));
    } else {
      const type = program.check().type;
      if (type !== 'bool' && type !== 'dyn') {
        ctx.causes.push(invalid(`${rulePath}.rule`, rule.rule, 'compilation failed: cel expression must evaluate to a bool'));
      }
      usesOldSelf = referencesOldSelf(program.ast);
      if (usesOldSelf && !correlatable) {
        ctx.causes.push(invalid(`${rulePath}.rule`, rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatableAt}`));
      }
    }
    if (rule.optionalOldSelf === true && !usesOldSelf && typeof program !== 'string') {
      ctx.causes.push(forbidden(`${rulePath}.optionalOldSelf`, 'may not be set if rule does not use oldSelf'));
    }
    if (rule.message !== undefined) {
      if (rule.message !== '' && rule.message.trim() === '') ctx.causes.push(invalid(`${rulePath}.message`, rule.message, 'message must be non-empty if specified'));
      if (rule.message.includes('\n')) ctx.causes.push(invalid(`${rulePath}.message`, rule.message, 'message must not contain line breaks'));
    }
    if (rule.messageExpression !== undefined) {
      if (rule.messageExpression.trim() === '') {
        ctx.causes.push(required(`${rulePath}.messageExpression`, 'messageExpression must be non-empty if specified'));
      } else {
        const message = parseCel(rule.messageExpression);
        if (typeof message === 'string') {
          ctx.causes.push(invalid(`${rulePath}.messageExpression`, rule.messageExpression, `messageExpression compilation failed: ERROR: ${message}`));
        } else {
          const type = message.check().type;
          if (type !== 'string' && type !== 'dyn') {
            ctx.causes.push(invalid(`${rulePath}.messageExpression`, rule.messageExpression, 'messageExpression compilation failed: messageExpression must evaluate to a string'));
          }
        }
      }
    }
    if (rule.reason !== undefined && !VALID_REASONS.includes(rule.reason)) {
      ctx.causes.push(notSupported(`${rulePath}.reason`, rule.reason, VALID_REASONS));
    }
    if (rule.fieldPath !== undefined && rule.fieldPath !== '' && !fieldPathResolves(schema, rule.fieldPath)) {
      ctx.causes.push(invalid(`${rulePath}.fieldPath`, rule.fieldPath, 'fieldPath must be a valid path: does not refer to a valid field'));
    }
  });
}

function checkDefault(schema: JSONSchemaProps, path: string, dataPath: string, ctx: Context): void {
  if (schema.default === undefined) return;
  const problems: FieldCause[] = [];
  validateValue(schema.default, compileSchema(schema), dataPath, undefined, problems);
  for (const problem of problems) ctx.causes.push({ ...problem, field: `${path}.default` });
}

function checkNode(
  schema: JSONSchemaProps,
  level: Level,
  path: string,
  dataPath: string,
  correlatable: boolean,
  uncorrelatableAt: string,
  ctx: Context,
): void {
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;

  if (schema.$ref !== undefined) ctx.causes.push(forbidden(`${path}.$ref`, '$ref is not supported'));
  if (schema.type === 'array' && schema.items === undefined) ctx.causes.push(required(`${path}.items`, 'must be specified'));
  if (Array.isArray(schema.items)) ctx.causes.push(forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (schema.uniqueItems === true) {
    ctx.causes.push(forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  }
  if (schema.additionalProperties !== undefined) {
    if (level === 'root') ctx.causes.push(forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    if (schema.additionalProperties === false) ctx.causes.push(forbidden(`${path}.additionalProperties`, 'additionalProperties cannot be set to false'));
    if (schema.properties !== undefined && Object.keys(schema.properties).length > 0) {
      ctx.causes.push(forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    }
  }
  if (intOrString && preserve) {
    ctx.causes.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  if (intOrString && embedded) {
    ctx.causes.push(invalid(`${path}.x-kubernetes-embedded-resource`, true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  if (embedded && schema.type !== 'object') {
    if (schema.type === undefined) ctx.causes.push(required(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
    else ctx.causes.push(invalid(`${path}.type`, schema.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if ((schema.type === undefined || schema.type === '') && !intOrString && !preserve) {
    const where = level === 'root' ? 'at the root' : level === 'item' ? 'for specified array items' : 'for specified object fields';
    ctx.causes.push(required(`${path}.type`, `must not be empty ${where}`));
  } else if (schema.type !== undefined && !['object', 'array', 'string', 'integer', 'number', 'boolean'].includes(schema.type)) {
    ctx.causes.push(notSupported(`${path}.type`, schema.type, ['array', 'boolean', 'integer', 'number', 'object', 'string']));
  }
  if (level === 'root' && schema.type !== undefined && schema.type !== 'object') {
    ctx.causes.push(invalid(`${path}.type`, schema.type, 'must be object at the root'));
  }
  if (schema.pattern !== undefined) {
    try {
      compilePattern(schema.pattern);
    } catch (error) {
      ctx.causes.push(invalid(`${path}.pattern`, schema.pattern, `must be a valid regular expression, but isn't: ${(error as Error).message}`));
    }
  }
  const metadata = schema.properties?.['metadata'];
  if (metadata !== undefined && level === 'root') checkRootMetadata(metadata, `${path}.properties[metadata]`, ctx);

  checkListType(schema, path, ctx);
  checkValidations(schema, path, correlatable, uncorrelatableAt, ctx);
  checkJunctors(schema, path, ctx, intOrString && isIntOrStringAnyOf(schema));
  if (level !== 'root') checkDefault(schema, path, dataPath, ctx);
  else if (schema.default !== undefined) ctx.causes.push(forbidden(`${path}.default`, 'must not be set at the root'));

  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    if (level === 'root' && name === 'metadata') continue;
    const childData = dataPath === '' ? name : `${dataPath}.${name}`;
    checkNode(sub, 'field', `${path}.properties[${name}]`, childData, correlatable, uncorrelatableAt, ctx);
  }
  if (typeof schema.additionalProperties === 'object' && schema.additionalProperties !== null) {
    checkNode(schema.additionalProperties, 'field', `${path}.additionalProperties`, dataPath, correlatable, uncorrelatableAt, ctx);
  }
  if (schema.items !== undefined && !Array.isArray(schema.items)) {
    // Items of a list-type=map list stay correlatable (matched by key); others do not.
    const itemsCorrelatable = correlatable && schema['x-kubernetes-list-type'] === 'map';
    const where = correlatable && !itemsCorrelatable ? dataPath : uncorrelatableAt;
    checkNode(schema.items, 'item', `${path}.items`, `${dataPath}[0]`, itemsCorrelatable, where, ctx);
  }
}

/**
 * Check a CRD version's openAPIV3Schema. An empty result means the schema is accepted.
 * `basePath` is the schema's location in the CRD, used as the prefix of every cause field.
 */
export function validateCrdSchema(schema: JSONSchemaProps, basePath = 'spec.versions[0].schema.openAPIV3Schema'): FieldCause[] {
  const ctx: Context = { causes: [] };
  checkNode(schema, 'root', basePath, '', true, '', ctx);
  // The real server sorts these by their full text, so their order is stable.
  return ctx.causes.sort((a, b) => {
    const left = `${a.field}: ${a.message}`;
    const right = `${b.field}: ${b.message}`;
    return left < right ? -1 : left > right ? 1 : 0;
  });
}
