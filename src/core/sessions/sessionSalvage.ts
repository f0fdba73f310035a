import * as fs from 'node:fs';
import { isoNow } from '../clock';
import { sessionFileBytes } from './logLines';
import type { ParsedSessionFile } from './sessionFileParser';

/**
 * Reopening a damaged session (JsonlSessionStore.reopenLog): new events must not land after the
 * damage, where no load would reach them, so the undamaged part is written in the file's place
 * (a temporary file renamed over it) and the damaged file is kept beside it, never listed.
 * Returns the new file's length.
 */
export async function replaceWithSalvage(file: string, parsed: ParsedSessionFile): Promise<number> {
  const data = sessionFileBytes(parsed.header, parsed.events);
  const stamp = isoNow().replace(/[:.]/g, '-');
  await fs.promises.copyFile(file, `${file}.damaged-${stamp}`);
  const temp = `${file}.${process.pid}-salvage.tmp`;
  await fs.promises.writeFile(temp, data);
  await fs.promises.rename(temp, file);
  return data.length;
}
