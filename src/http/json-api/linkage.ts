import type { ResourceIdentifier, ResourceObject } from './document';
import type { Relationship, ResourceRenderer } from './resource';

/** Each parent's linkage to the related objects loaded for an include. */
export function linkageOf<T>(
  resource: ResourceRenderer<T>,
  definition: Relationship<T>,
  related: ResourceObject[],
): (record: T) => ResourceIdentifier | ResourceIdentifier[] | null {
  if (definition.kind === 'one') {
    const visible = new Set(related.map((object) => object.id));
    return (record) => {
      const relatedId = definition.id(record);
      return relatedId !== null && visible.has(String(relatedId))
        ? { type: definition.type, id: String(relatedId) }
        : null;
    };
  }
  if (definition.kind === 'ids') {
    const visible = new Set(related.map((object) => object.id));
    return (record) =>
      definition
        .ids(record)
        .map(String)
        .filter((relatedId) => visible.has(relatedId))
        .map((relatedId) => ({ type: definition.type, id: relatedId }));
  }
  const byParent = new Map<string, ResourceIdentifier[]>();
  for (const object of related) {
    const owner = String(object.attributes[definition.filter]);
    byParent.set(owner, [
      ...(byParent.get(owner) ?? []),
      { type: object.type, id: object.id },
    ]);
  }
  return (record) => byParent.get(resource.id(record)) ?? [];
}
