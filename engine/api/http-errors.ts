// The error table is shared by both HTTP edges (this API and the gateway API): engine/shared holds it.
export { HTTP_STATUS_OF as STATUS_OF } from '#engine/shared';
