// The typed client of the audio, video and text analysis API.
export { createClient, API_KEY_HEADER, AUTHORIZATION_HEADER } from "./client.js";
export type { ApiClient, ClientOptions, EventStreamOptions, StreamUploadOptions, TokenSource } from "./client.js";
export type { Middleware, MiddlewareCallbackParams } from "openapi-fetch";
export {
  ApiError,
  ValidationError,
  RateLimitError,
  CredentialsError,
  TimeoutError,
  InsecureTransportError,
  StreamError,
  toApiError,
  unwrap,
  kindOfStatus,
} from "./errors.js";
export type { ApiErrorKind, DataOf, ErrorBody, FetchResult, RateLimitErrorBody, ValidationErrorBody, ValidationErrorItem } from "./errors.js";
export { readRateLimit, RATE_LIMIT_HEADERS } from "./rate-limit.js";
export type { RateLimit } from "./rate-limit.js";
export { ANALYSIS_STREAM_EVENT_KINDS, isFinalEvent, readEventStream, toAnalysisStreamEvent } from "./sse.js";
export type { AnalysisStreamEvent, AnalysisStreamEventKind } from "./sse.js";
export { DEFAULT_TIMEOUT_MS, RETRY_DEFAULTS } from "./transport.js";
export type { CallOptions, FetchFn, RetryOptions } from "./transport.js";
export { systemTimers } from "./timers.js";
export type { Timers } from "./timers.js";
export type {
  ClientMethod,
  HttpMethod,
  ListEnvelope,
  ListItem,
  ListPage,
  ListPath,
  PathsWith,
  WebSocketParams,
  WebSocketPath,
  components,
  paths,
} from "./types.js";
export {
  signWebhookPayload,
  verifyWebhookSignature,
  WebhookVerificationError,
  WEBHOOK_HEADERS,
  WEBHOOK_TOLERANCE_SECONDS,
} from "./webhooks.js";
export type {
  SignWebhookOptions,
  SignedWebhook,
  VerifyWebhookOptions,
  WebhookHeaders,
  WebhookPayload,
  WebhookVerificationFailure,
} from "./webhooks.js";
export { isLoopbackHost, redactToken, TOKEN_QUERY_PARAM, whenOpen } from "./websocket.js";
export type { WebSocketConstructor } from "./websocket.js";
