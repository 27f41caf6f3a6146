/**
 * The request body: which processor Content-Type (or ctl) picks, the body limit and its action,
 * and the URLENCODED / MULTIPART / JSON / XML processors' results stored for the variables
 * (ARGS_POST, FILES, REQBODY_ERROR, ...). Runs once, between phases 1 and 2.
 */
import { parseUrlencoded } from './body/urlencoded.ts';
import { parseMultipart, FINAL_BOUNDARY_MISSING } from './body/multipart.ts';
import { parseJson } from './body/json.ts';
import { parseXml } from './body/xml.ts';
import { TransactionActions } from './actions.ts';

export abstract class TransactionBody extends TransactionActions {
  /** The processor ModSecurity picks from Content-Type while reading the headers (before phase 1). */
  protected processorFor(ct: string): string | undefined {
    if (ct.startsWith('application/x-www-form-urlencoded')) return 'URLENCODED';
    if (ct.startsWith('multipart/form-data')) return 'MULTIPART';
    if (this.opts.jsonXmlByContentType && ct.startsWith('application/json')) return 'JSON';
    if (this.opts.jsonXmlByContentType && /^(?:application(?:\/soap\+|\/)|text\/)xml/.test(ct)) return 'XML';
    return undefined;
  }

  protected processRequestBody(): void {
    if (this.interrupted || this.allowAll || this.allowRequest || this.ruleEngine === 'Off') return;
    const raw = this.req.body;
    if (raw === null || raw.length === 0 || !this.bodyAccess) return;
    let buf = raw;
    if (buf.length > this.bodyLimit) {
      this.inboundDataError = true;
      if (this.rs.config.requestBodyLimitAction === 'Reject' && this.ruleEngine === 'On') {
        this.interrupted = true;
        this.status = 413;
        this.opts.logSink?.(
          `ModSecurity: Access denied with code 413 (phase 2). Request body (Content-Length) is larger than the configured limit (${this.bodyLimit}). [hostname "${this.header('host') ?? ''}"] [uri "${this.line.uri}"] [unique_id "${this.opts.uniqueId}"]`,
        );
        return;
      }
      buf = buf.subarray(0, this.bodyLimit);
    }
    const partial = this.req.bodyPartial === true;
    const body = buf.toString('latin1');
    // As in ModSecurity, REQUEST_BODY is only filled for the URLENCODED processor or when forced.
    if (this.bodyProcessor === 'URLENCODED' || this.forceBodyVariable) this.reqBody = body;
    this.reqBodyLength = buf.length;
    const contentType = this.header('content-type') ?? '';
    const processor = this.bodyProcessor;
    const limit = this.rs.config.argumentsLimit;
    switch (processor) {
      case 'URLENCODED': {
        this.processorName = 'URLENCODED';
        const r = parseUrlencoded(body, this.rs.config.argumentSeparator, limit);
        this.argsPost = r.pairs;
        if (r.invalidEncoding) this.urlencodedError = true;
        break;
      }
      case 'MULTIPART': {
        this.processorName = 'MULTIPART';
        const r = parseMultipart(body, contentType, limit);
        this.argsPost = r.args;
        this.files = r.files;
        this.partHeaders = r.partHeaders;
        this.multipartFlags = r.flags;
        if (r.error !== undefined && !(partial && r.error === FINAL_BOUNDARY_MISSING)) this.bodyError(r.error);
        break;
      }
      case 'JSON': {
        this.processorName = 'JSON';
        const r = parseJson(body, limit + 1);
        this.argsPost = r.args.slice(0, limit);
        // A body cut short ends in the middle of a value: that is the cut, not the client's error.
        if (r.error !== undefined && !partial) this.bodyError(`JSON parsing error: ${r.error}`);
        else if (r.args.length > limit) this.bodyError('JSON parsing error: arguments limit exceeded');
        break;
      }
      case 'XML': {
        this.processorName = 'XML';
        this.xml = parseXml(body);
        if (this.xml.error !== undefined && !partial) this.bodyError(`XML parsing error: ${this.xml.error}`);
        break;
      }
      default:
        if (processor !== undefined) this.processorName = processor;
        break;
    }
    this.argsCache = undefined;
    this.resolvedSets = [];
    this.selectorLists = [];
    this.pairBits = undefined;
  }

  protected bodyError(msg: string): void {
    this.reqBodyError = true;
    this.reqBodyErrorMsg = msg;
  }
}
