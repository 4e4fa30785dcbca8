#!/usr/bin/env node
// The CDK app entry point (cdk.json: "npx tsx bin/app.ts"). Everything lives in lib/app.ts.
import { buildApp } from '../lib/app.js';
import { ConfigError } from '../lib/config/index.js';

try {
  // The CLI resolves an account for `cdk deploy` (it needs credentials); offline synth has none.
  buildApp({ deployable: process.env.CDK_DEFAULT_ACCOUNT !== undefined, configFile: 'cdk.json' });
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
