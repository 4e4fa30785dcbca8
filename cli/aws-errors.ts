import { CliError } from './errors.js';

const CREDENTIALS_HINT = 'configure AWS credentials: AWS_PROFILE, aws sso login, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY';

/** An AWS SDK failure as a CliError (exit 1) with a hint; anything else is returned unchanged. */
export function awsError(error: unknown, region: string): unknown {
  if (error instanceof CliError || typeof error !== 'object' || error === null) return error;
  const e = error as { name?: string; message?: string; code?: string; $metadata?: unknown };
  const name = e.name ?? 'Error';
  const message = e.message ?? String(error);
  if (name === 'CredentialsProviderError' || /could not load credentials/i.test(message)) {
    return new CliError(`no AWS credentials: ${message}`, { code: 'aws_credentials', cause: error, hint: CREDENTIALS_HINT });
  }
  if (['ExpiredToken', 'ExpiredTokenException', 'UnrecognizedClientException', 'InvalidClientTokenId', 'InvalidSignatureException'].includes(name)) {
    return new CliError(`AWS refused the credentials (${name}): ${message}`, { code: 'aws_credentials', cause: error, hint: CREDENTIALS_HINT });
  }
  if (/AccessDenied|UnauthorizedOperation|NotAuthorized/.test(name)) {
    return new CliError(`AWS denied the call (${name}): ${message}`, {
      code: 'aws_access_denied',
      cause: error,
      hint: 'attach the stack\'s operator policy (output OperatorPolicyArn) to your role or user',
    });
  }
  if (name === 'ResourceNotFoundException' || name === 'NotFoundException') {
    return new CliError(`AWS: ${message} (${name})`, { code: 'aws_not_found', cause: error, hint: `check --region (now ${region}) and the stack outputs` });
  }
  if (/Throttl|TooManyRequests|LimitExceeded/.test(name)) {
    return new CliError(`AWS throttled the call (${name}): ${message}`, { code: 'aws_throttled', cause: error, hint: 'wait a minute and run the command again' });
  }
  if (name === 'ApiKeyQuotaError') {
    return new CliError(message, { code: 'api_key_quota', cause: error, hint: 'the 10,000 API keys per Region are fixed by AWS (one per account here): see "API keys and usage plans" in docs/operators/operations.md' });
  }
  if (e.code === 'ENOTFOUND' || e.code === 'ECONNREFUSED' || e.code === 'ETIMEDOUT' || e.code === 'ECONNRESET') {
    return new CliError(`cannot reach AWS in ${region} (${e.code})`, { code: 'network', cause: error, hint: 'check --region and the network' });
  }
  if (e.$metadata !== undefined) {
    return new CliError(`AWS: ${message} (${name})`, { code: 'aws', cause: error });
  }
  return error;
}
