export interface IdSource {
  /** 8 random lowercase hex characters, for node ids. */
  nodeSuffix(): string;
  /** A new project id, readable after the checkout directory it is created in. */
  projectId(checkoutRoot: string): string;
}
