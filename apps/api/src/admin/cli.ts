import { runAdmin } from './commands.ts';

/** `npm run admin -- …`: the administration command (commands.ts), its output written and its status the exit code. */
const result = await runAdmin(process.argv.slice(2));
process.stdout.write(result.out);
process.stderr.write(result.err);
process.exitCode = result.code;
