export type ProjectErrorCode =
  | 'invalid_request' |
  'account_not_found' |
  'project_not_found' |
  'deploy_not_found' |
  'slug_taken' |
  'slug_held' |
  'deploy_in_progress' |
  'deploy_not_rollbackable' |
  'files_missing' |
  'too_many_files' |
  'file_too_large' |
  'deploy_too_large' |
  'deploy_failed';

/** A refusal of the projects capability, rendered as problem+json with its `code` and status. */
export class ProjectError extends Error {
  constructor(
    readonly code: ProjectErrorCode,
    message: string,
    readonly status: number,
    /** Extra members of the problem document (e.g. the missing hashes of `files_missing`). */
    readonly extensions?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ProjectError';
  }
}
