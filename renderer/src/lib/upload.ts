/**
 * An operation whose body is large enough that the person should see it leave (an archive upload):
 * XMLHttpRequest, because fetch reports no upload progress. Same request, headers and errors as
 * `call` (api.ts), typed by the operation's contract.
 */
import { ApiError, NETWORK_ERROR, parseJson, type ApiClient } from './api.ts';
import { requestFor, type CallInput, type Contract, type ResponseOf } from './contracts.ts';

export function uploadWithProgress<C extends Contract>(
  client: ApiClient,
  contract: C,
  input: CallInput<C>,
  onprogress?: (sent: number, total: number) => void,
): Promise<ResponseOf<C>> {
  const request = requestFor(contract, input);
  return new Promise<ResponseOf<C>>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(request.method, request.url);
    xhr.withCredentials = true;
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('Content-Type', 'application/json');
    if (client.csrfToken) xhr.setRequestHeader('X-CSRF-Token', client.csrfToken);
    if (onprogress)
      xhr.upload.onprogress = (event) => onprogress(event.loaded, event.lengthComputable ? event.total : 0);
    xhr.onerror = () => reject(new ApiError(0, NETWORK_ERROR, 'network error'));
    xhr.onload = () => {
      if (xhr.status === 204) return resolve(undefined as ResponseOf<C>);
      const parsed = parseJson(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) return resolve(parsed as ResponseOf<C>);
      reject(client.failed(xhr.status, parsed));
    };
    xhr.send(request.body ?? null);
  });
}
