/**
 * Every error code the service returns, with its HTTP status and type. The API builds its error
 * responses from this table, and the documentation site renders one page per code from it, so a
 * code can never exist without its documentation.
 */
type ErrorType =
  | 'validation_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'idempotency_error'
  | 'invalid_request_error'
  | 'rate_limit_error'
  | 'api_error';

export interface ErrorEntry {
  status: number;
  type: ErrorType;
  /** One sentence: what happened. */
  title: string;
  /** What the caller should do about it. */
  remedy: string;
}

const e = (status: number, type: ErrorType, title: string, remedy: string): ErrorEntry => ({ status, type, title, remedy });

export const ERROR_CATALOGUE = {
  // Request shape
  parameter_missing: e(422, 'validation_error', 'A required field or parameter is missing.', 'Send the field named in error.field.'),
  parameter_invalid: e(422, 'validation_error', 'A field or parameter has a value outside what the route accepts.', 'Correct the value of error.field; the API reference gives its type and bounds.'),
  parameter_unknown: e(422, 'validation_error', 'The request carries a field the route does not know.', 'Remove error.field; unknown fields are rejected rather than ignored so that typos never pass silently.'),
  invalid_json: e(422, 'validation_error', 'The request body is not valid JSON.', 'Send a JSON document encoded in UTF-8.'),
  invalid_country: e(422, 'validation_error', 'The country is not an assigned ISO 3166-1 alpha-2 code.', 'Send two upper-case letters of an existing country, such as FR or DE.'),
  unknown_flow: e(422, 'validation_error', 'No activated flow has that name.', 'Use the name of a flow activated for this client and environment (the demo client has standard).'),
  country_not_accepted: e(422, 'validation_error', 'The flow accepts no document from that country.', 'Open the case with a country the flow accepts, or change the flow.'),
  unsupported_document_type: e(422, 'validation_error', 'The document type or issuing country is not accepted by the flow.', 'Ask the person for a document the flow accepts.'),
  unknown_event_type: e(422, 'validation_error', 'An event name is not in the webhook event catalogue.', 'Subscribe only to events listed by GET /v1/webhook-events.'),
  webhook_url_refused: e(422, 'validation_error', 'The url is not accepted as a webhook destination.', 'In production use an https url whose host resolves to public addresses only; in the sandbox http is accepted for localhost. No user name or password in the url.'),
  idempotency_key_missing: e(422, 'validation_error', 'This creation requires an Idempotency-Key header.', 'Send a new UUID in Idempotency-Key for each intention, and the same one when you retry it.'),
  idempotency_key_invalid: e(422, 'validation_error', 'The Idempotency-Key header is malformed.', 'Send 8 to 255 visible ASCII characters; a UUID is recommended.'),
  // Idempotency
  idempotency_key_reused: e(422, 'idempotency_error', 'This Idempotency-Key was already used with a different request.', 'Use a new key for a new intention; retry with exactly the same method, path and body.'),
  idempotency_request_in_progress: e(409, 'idempotency_error', 'The first request with this Idempotency-Key is still running.', 'Retry after a short delay: the stored response will then be replayed.'),
  // Authentication and permissions
  api_key_missing: e(401, 'authentication_error', 'No API key was sent.', 'Send Authorization: Bearer <API key>.'),
  api_key_invalid: e(401, 'authentication_error', 'The API key is unknown or malformed.', 'Check the key; secrets are shown once at creation and cannot be recovered.'),
  api_key_revoked: e(401, 'authentication_error', 'The API key has been revoked.', 'Create a new key and use it instead.'),
  signature_missing: e(401, 'authentication_error', 'This creation must be signed: X-Service-Timestamp or X-Service-Signature is missing.', 'Sign the request as described in the authentication guide.'),
  signature_expired: e(401, 'authentication_error', 'X-Service-Timestamp is more than 300 seconds away from the service clock.', 'Sign with the current time and keep your server clock synchronised.'),
  signature_invalid: e(401, 'authentication_error', 'X-Service-Signature does not match the request.', 'HMAC-SHA256 with the key signing secret over timestamp.METHOD.target.body, with the body exactly as sent.'),
  signature_replayed: e(401, 'authentication_error', 'This signature was already used, by a request with another Idempotency-Key: a signed request is accepted once.', 'Sign every request anew (a new timestamp gives a new signature); to retry a request, send it again with the same Idempotency-Key.'),
  permission_denied: e(403, 'permission_error', 'The API key lacks the permission this route requires.', 'Use a key created with the permission named in the message.'),
  permission_not_held: e(403, 'permission_error', 'A key cannot grant, nor revoke a key holding, a permission it does not hold itself.', 'Use a key that holds every permission of the key created or revoked.'),
  console_key_protected: e(403, 'permission_error', 'A console credential is not revoked through the API: every operator of the console depends on it.', 'Issue its replacement and revoke it with the command line (admin key create --kind console, then admin key revoke).'),
  console_credential_required: e(403, 'permission_error', 'Only a console credential may act for an operator.', 'Call this route from the console server with its credential.'),
  integration_key_required: e(403, 'permission_error', 'A console credential acts for operators only; this route is called with an integration key.', 'Call it with an API key made by POST /v1/api-keys or the admin command; the console credential works on operator-bound routes, naming the operator.'),
  reauth_required: e(403, 'permission_error', 'This action requires a recent re-authentication of the operator.', 'Re-authenticate with the identity provider and send the proof in X-Service-Reauthenticated-At.'),
  reauth_invalid: e(403, 'permission_error', 'The re-authentication proof is not a valid identity token of this operator.', 'Send the ID token the identity provider issued at the re-authentication, unchanged, for the operator named in X-Service-Operator.'),
  // Operators
  operator_required: e(401, 'authentication_error', 'This route acts for an operator: X-Service-Operator is missing or malformed.', 'Send X-Service-Operator: <operator id> as returned by POST /v1/operators/resolve.'),
  operator_unknown: e(401, 'authentication_error', 'No active operator has this id for this client and environment.', 'Resolve the signed-in subject with POST /v1/operators/resolve and use the id it returns.'),
  operator_revoked: e(403, 'permission_error', 'The operator has been revoked.', 'An administrator must invite the person again.'),
  operator_role_insufficient: e(403, 'permission_error', 'The role of the operator does not allow this action.', 'Ask an administrator for a clearance with the role named in the message.'),
  operator_already_revoked: e(409, 'conflict_error', 'The operator was already revoked.', 'Nothing to do: the operator has no access.'),
  operator_self_change: e(409, 'conflict_error', 'An administrator cannot revoke or change their own clearance.', 'Ask another administrator.'),
  invitation_invalid: e(404, 'not_found_error', 'The invitation token is unknown, expired, revoked or already used.', 'Ask an administrator for a new invitation.'),
  subject_unknown: e(404, 'not_found_error', 'No operator is attached to this subject.', 'Present the invitation token at the first sign-in, or ask an administrator for an invitation.'),
  subject_already_attached: e(409, 'conflict_error', 'This subject is already attached to another operator.', 'Sign in with the account of the invitation, or ask an administrator.'),
  // Resources
  route_not_found: e(404, 'not_found_error', 'No route has this path.', 'Check the path against the API reference; every path starts with /v1.'),
  resource_not_found: e(404, 'not_found_error', 'No such resource for this client and environment.', 'Check the identifier; resources of other clients or of the other environment are never visible.'),
  bad_request: e(400, 'invalid_request_error', 'The HTTP request is malformed.', 'Check the request line and headers (Content-Length, encoding).'),
  method_not_allowed: e(405, 'invalid_request_error', 'The path exists but not with this method.', 'Use one of the methods listed in the Allow header.'),
  payload_too_large: e(413, 'invalid_request_error', 'The request body is larger than the route accepts.', 'Send a smaller body; the limit is given in the message.'),
  unsupported_media_type: e(415, 'invalid_request_error', 'The request body has a content type the route does not accept.', 'Send Content-Type: application/json.'),
  headers_too_large: e(431, 'invalid_request_error', 'The request line and headers together are larger than the service accepts (16 KB).', 'Send shorter headers and a shorter address; put long values in the body of a POST.'),
  request_timeout: e(408, 'invalid_request_error', 'The request was not received completely in time.', 'Retry; send the whole request promptly once the connection is open.'),
  // Contract
  quota_exceeded: e(403, 'permission_error', 'The monthly quota of the service is used up and the subscription blocks beyond it.', 'Wait for the next month (UTC) or ask the provider for a larger quota; GET /v1/contract and GET /v1/usage show the terms and the month so far. The refusal is not stored: retry with the same Idempotency-Key once the quota allows.'),
  // Case life cycle
  case_not_awaiting_applicant: e(409, 'conflict_error', 'The case no longer waits for the person, so no journey link can be issued.', 'Read the case: the message says where it stands.'),
  case_not_in_review: e(409, 'conflict_error', 'The case is not in review, so it cannot be decided.', 'Read the case: the message says where it stands.'),
  case_open: e(409, 'conflict_error', 'Personal data can be erased only once the case is closed.', 'Wait for the decision, or for the case to expire.'),
  lock_expired: e(409, 'conflict_error', 'The review lock was lost after thirty minutes of inactivity.', 'Claim the task again.'),
  revision_changes_nothing: e(409, 'conflict_error', 'The revision would leave the decision as it is.', 'Revise only to change the outcome or its reason.'),
  case_not_decided: e(409, 'conflict_error', 'Only a decided case (approved or rejected) can be revised.', 'Read the case: the message says where it stands.'),
  case_erased: e(409, 'conflict_error', 'The personal data of this case has been erased; it receives no new personal data.', 'Nothing to reveal or add: the case, its steps, verdicts, decisions and journal remain readable.'),
  // Support access
  support_account_invalid: e(422, 'validation_error', 'The operator named is not an active support account of this client and environment.', 'Name an operator of role support (GET /v1/operators lists them).'),
  support_grant_closed: e(409, 'conflict_error', 'The support grant is already closed (revoked or past its term).', 'Nothing to do: the support account has no access through it.'),
  piece_unavailable: e(410, 'not_found_error', 'The image is no longer available: it was replaced by a retake, or deleted at the end of its retention or by an erasure.', 'Read the case: pieces[].available says which images can still be downloaded.'),
  portrait_not_found: e(404, 'not_found_error', 'No face was found on this document side: there is no portrait to cut from it.', 'Show the document side itself (without view=portrait).'),
  wallet_verification_busy: e(503, 'api_error', 'Too many wallet presentations are being verified right now; this one was not used.', 'Send the same answer again in a few seconds: the request is still open.'),
  image_views_busy: e(503, 'api_error', 'Too many thumbnails and portraits are being prepared right now.', 'Retry in a few seconds, or ask for the image as received.'),
  // Review tasks
  task_closed: e(409, 'conflict_error', 'The review task is closed: its case has been concluded or has left review.', 'Read the case record for the outcome.'),
  task_locked: e(409, 'conflict_error', 'Another operator holds the lock of this task.', 'Take another task; the lock lapses after thirty minutes of inactivity.'),
  lock_not_held: e(409, 'conflict_error', 'This operator does not hold the lock of the task.', 'Claim the task first.'),
  justification_required: e(
    422,
    'validation_error',
    'The decision goes against checks that failed or need attention, and says not why.',
    'Send justification: why the case is approved despite the checks the message lists (at least 10 characters). It is kept sealed with the decision and shown to auditors.',
  ),
  decision_already_recorded: e(409, 'conflict_error', 'This operator already recorded a different decision on this task.', 'A decision cannot be changed by retrying; a supervisor may revise a decided case.'),
  double_validation_same_operator: e(409, 'conflict_error', 'The second validation must come from another operator.', 'Leave the task to a colleague.'),
  journey_relaunch_failed: e(502, 'api_error', 'The decision is recorded but the journey could not be relaunched.', 'Retry the same call: the decision is not recorded twice and the relaunch is attempted again.'),
  // Hosted journey (authenticated by the session token of the journey link)
  session_token_missing: e(401, 'authentication_error', 'The journey call carries no session token.', 'Send Authorization: Session <token>, the token being the fragment of the journey link.'),
  session_token_invalid: e(401, 'authentication_error', 'The session token is unknown: the journey link is wrong or incomplete.', 'Ask the organisation that sent the link for a new one.'),
  session_expired: e(401, 'authentication_error', 'The journey link has expired.', 'Ask for a new link: the journey resumes where it was left.'),
  journey_closed: e(409, 'conflict_error', 'The case no longer accepts anything from the journey.', 'Nothing to send: the message says where the case stands.'),
  journey_step_blocked: e(409, 'conflict_error', 'An earlier step of the journey must be done first.', 'Do the step named in error.field first (consent comes before anything else).'),
  journey_step_not_asked: e(409, 'conflict_error', 'The journey of this case does not ask for this step.', 'Follow the steps of the journey state (GET /v1/sessions/current).'),
  journey_incomplete: e(409, 'conflict_error', 'The journey cannot be finished: items the flow needs are missing.', 'Send the items listed in the message, then finish again.'),
  document_not_chosen: e(409, 'conflict_error', 'The document photos come after the choice of the document.', 'Send the country and type of the document first.'),
  piece_not_expected: e(422, 'validation_error', 'The flow does not ask for this image.', 'Send only the images of the journey state (document sides of the chosen type, selfie, liveness challenges).'),
  piece_limit_reached: e(409, 'conflict_error', 'Too many images of this kind were sent for the case.', 'Contact the organisation that sent the link.'),
  face_challenge_invalid: e(409, 'conflict_error', 'The live sequence does not answer a challenge of this journey: the challenge is unknown, its nonce differs, or it was already answered.', 'Ask for a new challenge (POST /v1/sessions/current/face/challenge) and film it; a challenge is answered once.'),
  face_challenge_expired: e(409, 'conflict_error', 'The challenge of the live sequence expired (a minute after it was issued) before its frames arrived.', 'Ask for a new challenge and film it again.'),
  face_sequence_required: e(
    422,
    'validation_error',
    "The flow of this case asks for the live sequence of the head movements: it does not accept one still per movement.",
    'Ask for a challenge (POST /v1/sessions/current/face/challenge), film it and send its frames (POST /v1/sessions/current/face/sequence), as the hosted journey does; a capture client that cannot film needs a flow with liveness.allow_stills (docs/flows.md).',
  ),
  face_challenge_limit_reached: e(409, 'conflict_error', 'This case has asked for as many face challenges as it may (20).', 'Contact the organisation that sent the link.'),
  wallet_request_answered: e(409, 'conflict_error', 'The wallet request was already answered: a request is answered once.', 'Create a new wallet request (POST /v1/sessions/current/wallet/requests) and present again.'),
  wallet_request_expired: e(409, 'conflict_error', 'The wallet request expired before the wallet answered it (five minutes after it was issued).', 'Create a new wallet request and present again.'),
  wallet_request_limit_reached: e(409, 'conflict_error', 'This case has asked for as many wallet requests as it may (30).', 'Contact the organisation that sent the link.'),
  sandbox_only: e(404, 'not_found_error', 'This route exists in the sandbox environment only.', 'Use a session of a sandbox case (created with a sandbox key); in production a real wallet presents.'),
  sandbox_wallet_choice_invalid: e(
    422,
    'validation_error',
    'The sandbox test wallet cannot present this credential or outcome for this wallet request.',
    'Choose a credential the flow asks for (error.field credential: the message lists them), or an outcome the request allows (error.field outcome).',
  ),
  wallet_step_done: e(409, 'conflict_error', 'The wallet step of this round is over: a presentation was accepted, or as many were refused as a round allows.', 'Follow the journey state (GET /v1/sessions/current).'),
  sequence_invalid: e(422, 'validation_error', 'The live sequence breaks a limit: too few or too many frames, frames too large in all, or a capture longer than allowed.', 'Read error.field and the message; docs/liveness.md#the-live-sequence gives the limits.'),
  image_too_large: e(413, 'invalid_request_error', 'The image is larger than 10 MB.', 'Send a smaller image: the journey app resizes photos before sending them.'),
  image_type_unsupported: e(415, 'invalid_request_error', 'The bytes are not a JPEG, PNG, WebP or AVIF image.', 'Send the image file itself; its type is read from its content, not its name or Content-Type.'),
  image_unreadable: e(422, 'validation_error', 'The image cannot be decoded.', 'Take the photo again.'),
  image_dimensions_invalid: e(422, 'validation_error', 'The image is too small to be read, or too large to be processed.', 'Send an image within the bounds given in the message.'),
  appearance_invalid: e(422, 'validation_error', 'The journey appearance is refused: a colour is not #rrggbb, a text would not meet WCAG AA contrast (4.5:1), or the display name is not valid.', 'Read error.field and the message: it names the colour and its contrast; choose a darker primary colour or a lighter background.'),
  embedding_origin_invalid: e(422, 'validation_error', 'An embedding origin is not an origin of scheme and host only.', 'Write each origin as the browser does, such as https://www.example.com (no path, query, fragment or trailing slash; https in production).'),
  flow_definition_invalid: e(422, 'validation_error', 'The flow definition breaks a rule of flows that its schema alone cannot say.', 'Correct the part named in error.field (the message says what is wrong there); docs/flows.md lists the rules.'),
  // Desktop-to-phone handoff (docs/journey.md#continuing-on-a-phone)
  handoff_code_invalid: e(401, 'authentication_error', 'The handoff code is unknown: it was mistyped or is incomplete.', 'Type the code again as the computer shows it, or scan its QR code.'),
  handoff_code_expired: e(401, 'authentication_error', 'The handoff code no longer opens the journey: it was already opened, replaced by a newer code, or older than ten minutes.', 'Ask the computer for a new code and open it on the phone.'),
  handoff_limit_reached: e(409, 'conflict_error', 'This journey link has asked for as many handoff codes as it may.', 'Continue on this device, or ask the organisation that sent the link for a new one.'),
  // Webhooks
  webhook_endpoint_limit_reached: e(409, 'conflict_error', 'This environment already has the maximum number of webhook endpoints (16).', 'Subscribe an existing endpoint to more events rather than declaring another one.'),
  webhook_endpoint_suspended: e(409, 'conflict_error', 'The webhook endpoint is suspended after eight failed attempts of a delivery; nothing is sent to it.', 'Fix the receiver, then POST /v1/webhook-endpoints/{endpoint_id}/resume: deliveries that waited are sent at once.'),
  webhook_endpoint_disabled: e(409, 'conflict_error', 'The webhook endpoint is disabled: it receives no delivery, tests and replays included.', 'POST /v1/webhook-endpoints/{endpoint_id}/enable first: deliveries scheduled before it was disabled are then sent at once.'),
  webhook_delivery_scheduled: e(409, 'conflict_error', 'The delivery is still scheduled for another attempt, so a replay would send it twice.', 'Wait for its next attempt (next_attempt_at), or replay it once it has succeeded or failed.'),
  // Wallet trust anchors (docs/wallet.md#trust-anchors)
  trust_anchor_certificate_invalid: e(422, 'validation_error', 'certificate_pem is not exactly one PEM certificate that can be read.', 'Send one X.509 certificate, PEM-encoded (-----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----), alone: no private key, no chain, no other text; the message says what was found.'),
  trust_anchor_certificate_expired: e(422, 'validation_error', 'The certificate has expired: its not_after is past.', 'Upload the issuer\'s current certificate; an expired one could not anchor any credential.'),
  trust_anchor_not_ca: e(422, 'validation_error', 'An iaca anchor must be a CA certificate (basic constraints CA:TRUE).', 'Upload the issuing authority\'s IACA root, not a document signer; an SD-JWT VC issuer\'s own certificate is declared with kind sd_jwt_issuer.'),
  trust_anchor_exists: e(409, 'conflict_error', 'This certificate is already a trust anchor of this client and environment.', 'Nothing to add: the message names the anchor that holds it (remove it first to change its kind or label).'),
  trust_anchor_limit_reached: e(409, 'conflict_error', 'This environment already has the maximum number of trust anchors (100).', 'Remove anchors no longer needed (expired ones first), then add the new one.'),
  // Operator console (answered by the console server, not the service)
  session_required: e(401, 'authentication_error', 'No console session, or it has expired.', 'Sign in again at the console (/auth/login).'),
  session_ended: e(401, 'authentication_error', 'The console session was ended because the operator is revoked or no longer known.', 'Ask an administrator of your organisation.'),
  csrf_invalid: e(403, 'permission_error', 'The console write carries no valid CSRF token, or comes from another origin.', 'Send X-CSRF-Token with the csrf_token of GET /auth/session, from the console itself.'),
  service_unreachable: e(502, 'api_error', 'The console server could not reach the service.', 'Retry shortly; if it persists, check the service and API_BASE_URL of the console.'),
  // Rate limits
  rate_limited: e(429, 'rate_limit_error', 'Too many requests in the current window for this API key, operator, journey session or, after refused credentials, client address.', 'Wait the number of seconds in Retry-After, then retry (with the same Idempotency-Key for a creation); pace requests by the RateLimit-Remaining and RateLimit-Reset headers of every answer.'),
  // Service
  identity_provider_unavailable: e(503, 'api_error', 'The identity provider keys could not be fetched to verify the re-authentication.', 'Retry shortly; if it persists, check OIDC_JWKS_URL.'),
  service_unavailable: e(503, 'api_error', 'The service cannot store or read right now: its database is restarting or unreachable, or its storage is full; nothing of the request was stored.', 'Retry after the number of seconds in Retry-After, with the same Idempotency-Key for a creation; the service recovers by itself once its database answers again.'),
  internal_error: e(500, 'api_error', 'The service failed to handle the request.', 'Retry with the same Idempotency-Key; if it persists, report the request_id.'),
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function errorEntry(code: ErrorCode): ErrorEntry {
  return ERROR_CATALOGUE[code];
}
