// The operator CLI (npm run platform -- <command>): accounts, plans, keys, bans and usage, against
// the local platform's control API or a deployed stack. The commands live in cli/.
// The SDK's notice concerns releases after January 2027, not the pinned versions.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Imported after the line above: the AWS SDK reads it when it loads.
const { run } = await import('../cli/commands.js');

const io = { stdout: process.stdout, stderr: process.stderr, env: process.env };
process.exitCode = await run(process.argv.slice(2), io);
