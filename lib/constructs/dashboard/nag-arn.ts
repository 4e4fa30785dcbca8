import { type Stack } from 'aws-cdk-lib';

/** An ARN as cdk-nag writes it in a finding id: `<AWS::Name>`, `<LogicalId.Attribute>`, else JSON. */
export function nagArn(stack: Stack, arn: string): string {
  const render = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string') return `<${v.Ref}>`;
    const getAtt = v['Fn::GetAtt'] as [string, string] | undefined;
    if (getAtt) return `<${getAtt[0]}.${getAtt[1]}>`;
    const join = v['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return join[1].map(render).join(join[0]);
    return JSON.stringify(value);
  };
  return render(stack.resolve(arn));
}
