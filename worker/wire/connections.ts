// The per-user accounts' wire: GET /v1/connections and DELETE /v1/connections/:server answers
// (the page imports their types), the connect page's form, and the query an authorization server
// sends the callback.

import { z } from "zod";
import { check } from "./check.ts";

export const connection = z
  .object({
    server: z.string(),
    scopes: z.array(z.string()),
    connectedAt: z.string(),
    /** when the access token expires (it is refreshed before); null: the server gave no lifetime */
    expiresAt: z.string().nullable(),
  })
  .strict();

/** GET /v1/connections: the caller's own connections, and the servers that authorize each user. */
export const connectionsAnswer = z.object({ connections: z.array(connection), oauthServers: z.array(z.string()) }).strict();
export type ConnectionsAnswer = z.infer<typeof connectionsAnswer>;

/** DELETE /v1/connections/:server: forgotten, and whether the server revoked the tokens (RFC 7009). */
export const disconnectAnswer = z.object({ server: z.string(), disconnected: z.literal(true), revoked: z.boolean() }).strict();
export type DisconnectAnswer = z.infer<typeof disconnectAnswer>;

/** POST /connect/<server>/<link>: the page's form (the key proving the principal, and the page's CSRF token). */
const connectForm = z.object({ key: z.string().min(1).max(512), csrf: z.string().regex(/^[A-Za-z0-9_-]{43}$/) }).strict();
export type ConnectForm = z.infer<typeof connectForm>;
export const parseConnectForm = (body: Uint8Array): ConnectForm =>
  check(connectForm, Object.fromEntries(new URLSearchParams(new TextDecoder().decode(body))));

/** GET /connect/callback: the authorization response (RFC 6749 4.1.2), or its error. */
const callbackQuery = z.union([
  // iss: RFC 9207, the authorization server that answered (checked against the flow's own)
  z.object({ code: z.string().min(1).max(2048), state: z.string().max(400), iss: z.string().max(2048).optional() }).passthrough(),
  z
    .object({ error: z.string().max(200), error_description: z.string().max(500).optional(), state: z.string().max(400).optional() })
    .passthrough(),
]);
export type CallbackQuery = z.infer<typeof callbackQuery>;
export const parseCallbackQuery = (params: URLSearchParams): CallbackQuery => check(callbackQuery, Object.fromEntries(params));
