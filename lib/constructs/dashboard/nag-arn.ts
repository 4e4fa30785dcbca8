import { type Stack } from 'aws-cdk-lib';

/**
 * An ARN as cdk-nag writes it in a finding id (IAM5 `Resource::`): unresolved pseudo parameters
 * as `<AWS::Name>`, references within the stack as `<LogicalId.Attribute>` / `<LogicalId>`, any
 * other intrinsic as its JSON.
 */
export function nagArn(stack: Stack, arn: string): string {
  const render = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string') return `<${v.Ref}>`;
    const getAtt = v['Fn::GetAtt'] as [string, string] | undefined;
    if (getAtt) return `<${getAtt[0]}.${getAtt[1]}>`;
    const join = v['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return join[1].map(render).join(join[0]);
    // Anything else (e.g. a weak cross-stack reference, Fn::GetStackOutput) as JSON, as cdk-nag writes it.
    return JSON.stringify(value);
  };
  return render(stack.resolve(arn));
}
