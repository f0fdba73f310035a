import * as fs from 'node:fs';
import { isoNow } from '../clock';
import { sessionFileBytes } from './logLines';
import type { ParsedSessionFile } from './sessionFileParser';

/** Keeps a copy of a damaged file and puts the salvaged session in its place. Returns its length. */
export async function replaceWithSalvage(file: string, parsed: ParsedSessionFile): Promise<number> {
  const data = sessionFileBytes(parsed.header, parsed.events);
  const stamp = isoNow().replace(/[:.]/g, '-');
  await fs.promises.copyFile(file, `${file}.damaged-${stamp}`);
  const temp = `${file}.${process.pid}-salvage.tmp`;
  await fs.promises.writeFile(temp, data);
  await fs.promises.rename(temp, file);
  return data.length;
}
