import { type Command, deployedOnly } from '../command.js';

export const DLQ_COMMANDS: readonly Command[] = [
  {
    words: ['dlq', 'redrive'],
    summary: 'Move the dead-lettered messages back to the messages queue (SQS StartMessageMoveTask; deployed stack only)',
    flags: [['--stack NAME | --outputs FILE', 'the deployed API stack (one of the two is needed)']],
    examples: ['dlq redrive --stack MessagesPlatform-Api --region eu-west-1', 'dlq redrive --outputs cdk-outputs.json'],
    async run(ctx) {
      const stack = deployedOnly(
        ctx,
        'dlq redrive works on a deployed stack: give --stack or --outputs',
        'locally, the fault tests call redriveDeadLetters() of the local platform (local/platform.ts)',
      );
      const { startRedrive } = await import('../dlq-redrive.js');
      const task = await startRedrive(stack);
      ctx.output(
        task,
        `Started moving ${task.messages} message${task.messages === 1 ? '' : 's'} from ${task.sourceArn} to ${task.destinationArn} (task ${task.taskHandle}).\n` +
        'The worker processes each one; its record goes from failed to processed.\n',
      );
    },
  },
];
