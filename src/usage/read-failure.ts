/** A system error in words, for the paths `usage` and `sessions` could not read. */

/** Why a file or folder could not be read, in words, from the system's error. */
export function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ENOENT":
      return "no such file or folder";
    case "ELOOP":
      return "a loop of symbolic links";
    case "EIO":
      return "input/output error";
    default:
      return code ?? (error instanceof Error ? error.message : String(error));
  }
}
