// vitest's setupFiles: runs before each test file (docs in test/helpers/temp.ts).
import { isolateHome } from "./temp.ts";

isolateHome();
