/** Longest network id accepted, in UTF-16 code units. */
export const MAX_NETWORK_ID_LENGTH = 512;

/**
 * Why a network id cannot be polled, or undefined when it can. Shared by the config loader and the CDK
 * context, so the stack refuses at synth what the function would refuse at run time.
 */
export function networkIdProblem(id: string): string | undefined {
  if (id === '') return 'empty';
  if (/[\u0000-\u001f\u007f]/.test(id) || id.length > MAX_NETWORK_ID_LENGTH) {
    return `control characters or over ${MAX_NETWORK_ID_LENGTH} characters`;
  }
  // Percent-encoded dots are still "." and ".." to servers that normalise paths: such an id could climb.
  if (/^\.+$/.test(id)) return 'only dots cannot be a path segment';
  return undefined;
}
