// Which resources are served: the built-ins plus one entry per established CRD. Routing,
// discovery and OpenAPI all read from here.
import { builtinResourceTypes } from './builtin-resources.js';
import type { ResourceType } from './resource-type.js';
import { compareVersionPriority } from './version-priority.js';

export class ResourceRegistry {
  private readonly builtins: ResourceType[] = builtinResourceTypes();
  private readonly customs = new Map<string, ResourceType>();
  /** Bumped on every change so that discovery and OpenAPI caches (and their hashes) refresh. */
  generation = 0;

  all(): ResourceType[] {
    return [...this.builtins, ...this.customs.values()];
  }

  find(group: string, version: string, plural: string): ResourceType | undefined {
    const custom = this.customs.get(`${group}/${plural}`);
    if (custom?.versions.includes(version)) return custom;
    return this.builtins.find((t) => t.group === group && t.plural === plural && t.versions.includes(version));
  }

  findByStorageKey(storageKey: string): ResourceType | undefined {
    return this.all().find((t) => t.storageKey === storageKey);
  }

  setCustom(type: ResourceType): void {
    this.customs.set(`${type.group}/${type.plural}`, type);
    this.generation += 1;
  }

  removeCustom(group: string, plural: string): void {
    this.customs.delete(`${group}/${plural}`);
    this.generation += 1;
  }

  /** Groups with their versions in priority order; the core group ("") included. */
  groups(): Map<string, string[]> {
    const groups = new Map<string, Set<string>>();
    for (const type of this.all()) {
      let versions = groups.get(type.group);
      if (!versions) groups.set(type.group, (versions = new Set()));
      for (const version of type.versions) versions.add(version);
    }
    const ordered = new Map<string, string[]>();
    for (const [group, versions] of groups) ordered.set(group, [...versions].sort(compareVersionPriority));
    return ordered;
  }

  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.all().filter((t) => t.group === group && t.versions.includes(version));
  }
}
