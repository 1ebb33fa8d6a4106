// The chart under the real helm binary: lint and render over several value sets, and the
// values schema turns bad values into errors that name the field.
import { describe, expect, it } from 'vitest';
import { VALUE_SETS, helmLint, helmTemplate, type ValueSet } from './support/helm.js';

describe('helm lint and helm template', () => {
  it.each(VALUE_SETS.map((v) => [v.name, v] as const))(
    'lints cleanly with %s',
    async (_name, valueSet: ValueSet) => {
      const result = await helmLint(valueSet);
      expect(result.stderr + result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
      expect(result.code).toBe(0);
    },
  );

  it.each(VALUE_SETS.map((v) => [v.name, v] as const))(
    'renders with %s',
    async (_name, valueSet: ValueSet) => {
      const result = await helmTemplate(valueSet);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('kind: Deployment');
    },
  );
});

describe('values.schema.json', () => {
  const rejections: Array<{
    name: string;
    set?: string[];
    values?: Record<string, unknown>;
    field: string;
    rule: RegExp;
  }> = [
    {
      name: 'an unknown top-level value',
      set: ['replicas=2'],
      field: '(root)',
      rule: /Additional property replicas is not allowed/,
    },
    {
      name: 'an unknown nested value',
      set: ['image.name=x'],
      field: 'image',
      rule: /Additional property name is not allowed/,
    },
    {
      name: 'a region outside us/eu',
      set: ['controlPlane.region=asia'],
      field: 'controlPlane.region',
      rule: /must be one of the following: "us", "eu"/,
    },
    {
      name: 'a log level outside the enum',
      set: ['logLevel=verbose'],
      field: 'logLevel',
      rule: /must be one of the following/,
    },
    {
      name: 'a resync period without unit',
      set: ['resyncPeriod=600'],
      field: 'resyncPeriod',
      rule: /Invalid type|Does not match pattern/,
    },
    {
      name: 'a resync period in days',
      set: ['resyncPeriod=1d'],
      field: 'resyncPeriod',
      rule: /Does not match pattern/,
    },
    {
      name: 'a push poll period without unit',
      set: ['pushPollPeriod=10'],
      field: 'pushPollPeriod',
      rule: /Invalid type|Does not match pattern/,
    },
    {
      name: 'a rate limit without window',
      set: ['rateLimit=1000'],
      field: 'rateLimit',
      rule: /Invalid type|Does not match pattern/,
    },
    {
      name: 'a rate limit of zero',
      set: ['rateLimit=0/10'],
      field: 'rateLimit',
      rule: /Does not match pattern/,
    },
    {
      name: 'zero concurrency',
      set: ['concurrency=0'],
      field: 'concurrency',
      rule: /greater than or equal to 1/,
    },
    {
      name: 'a url that is not http(s)',
      set: ['controlPlane.url=ftp://x'],
      field: 'controlPlane.url',
      rule: /Does not match pattern/,
    },
    {
      name: 'an empty API-key Secret name',
      set: ['controlPlane.apiKey.existingSecret='],
      field: 'controlPlane.apiKey.existingSecret',
      rule: /Does not match pattern/,
    },
    {
      name: 'a malformed digest',
      set: ['image.digest=sha256:abc'],
      field: 'image.digest',
      rule: /Does not match pattern/,
    },
    {
      name: 'a watched namespace that is no DNS label',
      values: { watchNamespaces: ['Team_A'] },
      field: 'watchNamespaces.0',
      rule: /Does not match pattern/,
    },
    {
      name: 'a tenant id that is no uuid',
      set: ['controlPlane.tenantId=acme'],
      field: 'controlPlane.tenantId',
      rule: /Does not match pattern/,
    },
    {
      name: 'a pull policy outside the enum',
      set: ['image.pullPolicy=Sometimes'],
      field: 'image.pullPolicy',
      rule: /must be one of the following/,
    },
  ];

  it.each(rejections.map((r) => [r.name, r] as const))(
    'rejects %s, naming the field',
    async (_name, rejection) => {
      for (const result of [await helmTemplate(rejection), await helmLint(rejection)]) {
        expect(result.code).not.toBe(0);
        const output = result.stderr + result.stdout;
        expect(output).toContain(`- ${rejection.field}: `);
        expect(output).toMatch(rejection.rule);
      }
    },
  );

  it('fails with a message when a ServiceMonitor is asked for without the metrics Service', async () => {
    const result = await helmTemplate({
      set: ['serviceMonitor.enabled=true', 'metrics.service.enabled=false'],
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('serviceMonitor.enabled needs metrics.service.enabled');
  });
});
