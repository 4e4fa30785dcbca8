// The stage's stand-in for Lambda's Node.js runtime, run with plain `node` (never tsx: a TypeScript
// loader would resolve modules the bundle failed to carry and hide ESM/CJS mistakes). One process
// per function, with exactly the environment the parent gives it, the function's code directory as
// the working directory (Lambda's /var/task), and invocations over the IPC channel.
//   node bootstrap.mjs <codeDir> <handler, e.g. index.verifyDns> <timeout in ms>
import dns from 'node:dns';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [codeDir, handlerSpec, timeoutArg] = process.argv.slice(2);

// Never outlive the test run that started this process (a killed runner leaves no orphans).
process.on('disconnect', () => process.exit(0));

// The KeyValueStore client puts the account id of the store's ARN in front of the endpoint's host
// (<account>.<host>), so its stub is reached as `localhost`. Names under .localhost are loopback
// (RFC 6761); this machine's resolver does not know that, so say it here, before any connection.
const systemLookup = dns.lookup;
dns.lookup = function lookup(hostname, options, callback) {
  if (typeof hostname === 'string' && hostname.endsWith('.localhost')) {
    const done = typeof options === 'function' ? options : callback;
    const all = typeof options === 'object' && options !== null && options.all === true;
    if (all) process.nextTick(done, null, [{ address: '127.0.0.1', family: 4 }]);
    else process.nextTick(done, null, '127.0.0.1', 4);
    return {};
  }
  return systemLookup.call(this, hostname, options, callback);
};

const describe = (error, errorType) => ({
  errorType: errorType ?? (error instanceof Error ? error.name : typeof error),
  errorMessage: error instanceof Error ? error.message : String(error),
  stack: error instanceof Error ? (error.stack ?? '') : '',
});

/** As Lambda's runtime: `<module>.<export>`, the module as .js, .mjs or .cjs in the code directory. */
async function loadHandler() {
  const dot = handlerSpec.lastIndexOf('.');
  const moduleName = handlerSpec.slice(0, dot);
  const exportName = handlerSpec.slice(dot + 1);
  const file = ['.js', '.mjs', '.cjs'].map((ext) => join(codeDir, moduleName + ext)).find((f) => existsSync(f));
  if (!file) {
    throw Object.assign(new Error(`Cannot find module '${moduleName}' in ${codeDir}`), { runtimeType: 'Runtime.ImportModuleError' });
  }
  let module;
  try {
    module = await import(pathToFileURL(file).href);
  } catch (error) {
    if (error && (error.code === 'ERR_MODULE_NOT_FOUND' || error.code === 'MODULE_NOT_FOUND')) {
      error.runtimeType = 'Runtime.ImportModuleError';
    } else if (error instanceof SyntaxError) {
      error.runtimeType = 'Runtime.UserCodeSyntaxError';
    }
    throw error;
  }
  const handler = module[exportName];
  if (typeof handler !== 'function') {
    throw Object.assign(new Error(`${handlerSpec} is undefined or not exported`), { runtimeType: 'Runtime.HandlerNotFound' });
  }
  return handler;
}

let handler;
try {
  handler = await loadHandler();
} catch (error) {
  process.send({ type: 'init-error', ...describe(error, error?.runtimeType) }, () => process.exit(1));
}

if (handler) {
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME;
  const timeoutMs = Number(timeoutArg);
  process.on('message', async (message) => {
    if (message?.type !== 'invoke') return;
    const deadline = Date.now() + timeoutMs;
    // Lambda sets the trace header of each invocation in the environment (Powertools reads it).
    process.env._X_AMZN_TRACE_ID = message.traceId;
    const context = {
      awsRequestId: message.requestId,
      callbackWaitsForEmptyEventLoop: true,
      functionName,
      functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
      invokedFunctionArn: message.invokedFunctionArn,
      memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
      logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
      logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done: () => {},
      fail: () => {},
      succeed: () => {},
    };
    try {
      const result = await handler(message.event, context);
      // Lambda answers the JSON of the result (undefined becomes null).
      process.send({ type: 'result', id: message.id, value: JSON.parse(JSON.stringify(result ?? null)) });
    } catch (error) {
      process.send({ type: 'error', id: message.id, ...describe(error) });
    }
  });
  process.send({ type: 'ready' });
}
