/** The hello-world activity of the benchmark anchor (see helloWorkflow.ts). */
export function createHelloActivities() {
  return {
    /** Returns the greeting; no I/O. */
    async greet(name: string): Promise<string> {
      return `Hello, ${name}!`;
    },
  };
}
