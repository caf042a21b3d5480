/**
 * multipart/form-data bodies as a browser or curl sends them, made by the platform's own FormData
 * encoder (undici's), so the tests do not depend on our idea of the format.
 */
export interface FormPart {
  name: string;
  /** Text field value, or file bytes with a file name. */
  value: string | { bytes: Uint8Array; filename: string; type?: string };
}

export async function multipartBody(parts: FormPart[]): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const part of parts) {
    if (typeof part.value === 'string') form.append(part.name, part.value);
    else form.append(part.name, new Blob([new Uint8Array(part.value.bytes)], { type: part.value.type ?? 'application/octet-stream' }), part.value.filename);
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type') as string };
}
