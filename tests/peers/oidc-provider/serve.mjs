// Starts panva's oidc-provider (an independent, OpenID-certified OAuth 2.0 / OIDC server) on
// 127.0.0.1 for elicitkit's tests. Usage: node serve.mjs '<json config>'. Prints one line of
// JSON, {"issuer": "http://127.0.0.1:<port>"}, once it listens; stops on SIGTERM or stdin EOF.
//
// Config: {"clients": [oidc-provider client metadata...],
//          "resources": {"<resource url>": {"scope": "a b", "format": "jwt" | "opaque"}},
//          "defaultResource": "<resource url>" (optional), "accessTokenTTL": seconds (optional),
//          "scopes": [extra scopes the provider knows, e.g. a resource's] (optional),
//          "registration": true to open RFC 7591 dynamic client registration at /reg (optional)}
// Everything else is the provider's default: its own login and consent pages (any login name
// is the account id; consent grants what is asked), PKCE, refresh token rotation, revocation,
// introspection, RFC 8707 resource indicators, RFC 9207 `iss` in responses, OIDC offline_access
// rules (a refresh token only with offline_access, which needs prompt=consent).
import http from 'node:http';
import Provider from 'oidc-provider';

const config = JSON.parse(process.argv[2] || '{}');
const resources = config.resources || {};

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: config.clients || [],
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    scopes: ['openid', 'offline_access', ...(config.scopes || [])],
    ttl: { AccessToken: config.accessTokenTTL || 3600 },
    rotateRefreshToken: true,
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: Boolean(config.registration) },
      revocation: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf || config.defaultResource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          const info = resources[indicator];
          if (!info) throw new Provider.errors.InvalidTarget();
          return {
            scope: info.scope,
            audience: indicator,
            accessTokenTTL: config.accessTokenTTL || 3600,
            accessTokenFormat: info.format || 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  });
  provider.proxy = false;
  server.on('request', provider.callback());
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
