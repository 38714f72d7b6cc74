/**
 * Renders a record as the JSON:API resource object its GET shows (`type`,
 * `id`, `attributes`, `relationships`, `links`), by its resource type. The
 * HTTP layer provides it (the JSON:API registry); the webhook outbox takes
 * it by this token so that the domain never imports the HTTP layer.
 */
export interface ResourceObjects {
  render(type: string, record: unknown): { attributes: object };
}

export const RESOURCE_OBJECTS = Symbol('ResourceObjects');
