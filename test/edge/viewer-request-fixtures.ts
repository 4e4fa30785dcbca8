// Shared by viewer-request.test.ts and cloudfront-function.test.ts.

/** The KeyValueStore id the function is deployed with. */
export const KVS_ID = 'a1b2c3d4-5678-90ab-cdef-000000000001';
/** A live deploy's prefix in the site bucket. */
export const PREFIX = 'projects/01JPROJ/deploys/01JDEPLOY';
