// The part of madge 8 the cycle check uses (test/lambda/dependency-cycles.test.ts); it ships no types.
declare module 'madge' {
  interface MadgeResult {
    obj(): Record<string, string[]>;
    circular(): string[][];
  }
  interface MadgeConfig {
    fileExtensions?: string[];
    tsConfig?: string;
  }
  export default function madge(paths: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
}
