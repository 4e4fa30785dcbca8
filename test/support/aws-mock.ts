/**
 * aws-sdk-client-mock's `on(...).resolves(...)` / `commandCalls(...)` for the platform's own AWS
 * clients (lambda/shared/aws), which are not SDK clients: it replaces `send` on one instance.
 */
import { AwsServiceError } from '../../lambda/shared/aws/aws-client.js';

interface Command {
  readonly input: object;
}
type CommandClass<C extends Command> = new (input: C['input']) => C;
type Behaviour = (input: object) => Promise<unknown>;

interface Rule {
  readonly command: CommandClass<Command>;
  readonly input: object | undefined;
  readonly once: Behaviour[];
  always: Behaviour | undefined;
}

export interface RuleBuilder {
  resolves(output: object): RuleBuilder;
  rejects(error: unknown): RuleBuilder;
  resolvesOnce(output: object): RuleBuilder;
  rejectsOnce(error: unknown): RuleBuilder;
  callsFake(fake: (input: never) => Promise<unknown>): RuleBuilder;
}

export interface SendMock {
  on<C extends Command>(command: CommandClass<C>, input?: Partial<C['input']>): RuleBuilder;
  commandCalls<C extends Command>(command: CommandClass<C>): Array<{ args: [C] }>;
  calls(): Array<{ args: [Command] }>;
  reset(): void;
}

const matches = (input: object, partial: object | undefined) =>
  partial === undefined ||
  Object.entries(partial).every(
    ([key, value]) => JSON.stringify((input as Record<string, unknown>)[key]) === JSON.stringify(value),
  );

/** Every `send` on `client` answers from the rules (undefined without one) and is recorded. */
export function mockSend(client: { send: (command: never) => Promise<unknown> }): SendMock {
  let rules: Rule[] = [];
  let sent: Command[] = [];
  (client as { send: unknown }).send = (command: Command) => {
    sent.push(command);
    const candidates = rules.filter((r) => command instanceof r.command && matches(command.input, r.input));
    // Rules for a given input win over a command's catch-all, as in aws-sdk-client-mock.
    const rule = candidates.find((r) => r.input !== undefined) ?? candidates[0];
    const behaviour = rule?.once.shift() ?? rule?.always;
    return behaviour ? behaviour(command.input) : Promise.resolve(undefined);
  };
  return {
    on(command, input) {
      const key = JSON.stringify(input);
      let rule = rules.find((r) => (r.command as unknown) === command && JSON.stringify(r.input) === key);
      if (!rule) {
        rule = { command: command as unknown as CommandClass<Command>, input, once: [], always: undefined };
        rules.push(rule);
      }
      const target = rule;
      const builder: RuleBuilder = {
        resolves: (output) => ((target.always = async () => output), builder),
        rejects: (error) => ((target.always = () => Promise.reject(error)), builder),
        resolvesOnce: (output) => (target.once.push(async () => output), builder),
        rejectsOnce: (error) => (target.once.push(() => Promise.reject(error)), builder),
        callsFake: (fake) => ((target.always = (i) => fake(i as never)), builder),
      };
      return builder;
    },
    commandCalls: <C extends Command>(command: CommandClass<C>) =>
      sent.filter((c): c is C => c instanceof command).map((c) => ({ args: [c] as [C] })),
    calls: () => sent.map((c) => ({ args: [c] as [Command] })),
    reset: () => {
      rules = [];
      sent = [];
    },
  };
}

/** The error the platform's DynamoDB client throws when a condition fails (as DynamoDB answers it). */
export const conditionalCheckFailed = (message = 'The conditional request failed'): AwsServiceError =>
  new AwsServiceError({
    name: 'ConditionalCheckFailedException',
    message,
    fault: 'client',
    metadata: { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 },
    retryable: false,
  });
