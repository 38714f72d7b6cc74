/**
 * The `data` part of a POST /v1/files upload: a `files` document for the
 * variant, with `attributes` when given.
 */
export function filesDocument(
  variantId: string,
  attributes?: Record<string, unknown>,
): string {
  return JSON.stringify({
    data: {
      type: 'files',
      ...(attributes ? { attributes } : {}),
      relationships: {
        variant: { data: { type: 'variants', id: variantId } },
      },
    },
  });
}

/** POST /v1/files with a multipart body as built (any parts, in any order). */
export function postMultipart(
  baseUrl: string,
  apiKey: string,
  form: FormData,
): Promise<Response> {
  return fetch(`${baseUrl}/v1/files`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}` },
    body: form,
  });
}

/** Uploads `file` as `name` to the variant, as a merchant's multipart POST /v1/files does. */
export function uploadFile(
  baseUrl: string,
  apiKey: string,
  upload: {
    variantId: string;
    file: Blob;
    name: string;
    attributes?: Record<string, unknown>;
  },
): Promise<Response> {
  const form = new FormData();
  form.append('data', filesDocument(upload.variantId, upload.attributes));
  form.append('file', upload.file, upload.name);
  return postMultipart(baseUrl, apiKey, form);
}
