"""Schemathesis checks of the security run (loaded with SCHEMATHESIS_HOOKS=hooks).

RAMPART_ROLE names who the run signs in as: administrator, user, guest, or anonymous (no session).
Each operation of the document carries x-rampart-access: "public", "signedIn" or the roles allowed.
"""

import os

import schemathesis

ROLE = os.environ.get("RAMPART_ROLE", "anonymous")
SITE_ID = os.environ.get("RAMPART_SITE_ID", "")

SECURITY_HEADERS = {
    "content-security-policy": "script-src 'self'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
}


def _access(case):
    return case.operation.definition.raw.get("x-rampart-access")


@schemathesis.check
def success_within_role(ctx, response, case):
    """A 2xx answer only to a caller the operation's access admits."""
    if not 200 <= response.status_code < 300:
        return None
    access = _access(case)
    if access == "public":
        return None
    if ROLE == "anonymous":
        raise AssertionError(f"{response.status_code} without a session; the operation is for {access}")
    if access == "signedIn":
        return None
    if not isinstance(access, list) or ROLE not in access:
        raise AssertionError(f"{response.status_code} for the role {ROLE}; the operation is for {access}")
    return None


@schemathesis.check
def security_headers_present(ctx, response, case):
    """Every API answer carries the security headers and is not cached."""
    headers = {name.lower(): values for name, values in response.headers.items()}
    for name, expected in SECURITY_HEADERS.items():
        values = headers.get(name) or []
        if not any(expected in value for value in values):
            raise AssertionError(f"missing or wrong {name} header: {values}")
    if "no-store" not in " ".join(headers.get("cache-control") or []):
        raise AssertionError(f"API answer without Cache-Control: no-store: {headers.get('cache-control')}")
    return None


@schemathesis.hook
def map_path_parameters(ctx, path_parameters):
    """Half of the site-scoped calls use a site that exists, so handlers past the lookup run too."""
    operation = ctx.operation
    if SITE_ID and operation is not None and operation.path.startswith("/api/v1/sites/{id}"):
        # Only a valid id is swapped, so a case generated as invalid input stays invalid.
        value = path_parameters.get("id") if isinstance(path_parameters, dict) else None
        if isinstance(value, str) and 1 <= len(value) <= 64 and "/" not in value:
            map_path_parameters.counter = getattr(map_path_parameters, "counter", 0) + 1
            if map_path_parameters.counter % 2 == 0:
                return {**path_parameters, "id": SITE_ID}
    return path_parameters
