import { type GatewayResponseDefinition, gatewayProblemBody } from '../../../contracts/gateway-responses.js';

/** The problem body of a gateway response, `$context.requestId` substituted by API Gateway. */
export function gatewayResponseTemplate(def: GatewayResponseDefinition): string {
  return gatewayProblemBody(def, '$context.requestId');
}

/** Gateway response header values are mapping expressions: static values must be single-quoted. */
export function gatewayResponseHeaders(def: GatewayResponseDefinition): Record<string, string> {
  return Object.fromEntries(
    Object.entries(def.headers).map(([name, value]) => {
      if (value.includes('\'')) throw new Error(`gateway response ${def.type}: header ${name} must not contain a quote`);
      return [name, `'${value}'`];
    }),
  );
}
