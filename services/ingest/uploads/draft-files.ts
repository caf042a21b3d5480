/**
 * The uploaded file of each draft, kept on local disk until the draft is started (its rows are
 * read again then, with the mapping the start gives) or deleted. Personal data: mode 0600 in a
 * 0700 directory (`UPLOAD_DIR`, default `<DATA_DIR>/uploads`), named after the job id only.
 *
 * Who removes a file: the start once the rows are on the log; DELETE at once; and `sweep` (the
 * API at start and every retention period) for every file whose job is no longer a draft or no
 * longer exists (a draft purged at its delete_after by the projection, a start killed half-way).
 * API processes that serve the same jobs must share this directory (one machine, or a shared
 * volume): a /start on another machine would not find the file (docs/decisions.md §14 drafts).
 */
import { constants } from 'node:fs';
import { chmod, copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { modifiedAtMs, sweepFolder } from '../../platform/folder-sweep.ts';
import { spoolFullIfDiskFull } from '../jobs/errors.ts';

const DRAFT_FILE = /^draft-([0-9a-f-]{36})\.upload$/;

/** What the job store says of a draft file's job: still a draft, another status, or no record. */
export type DraftState = 'draft' | 'not_draft' | 'no_record';

export interface DraftFiles {
  /**
   * Keeps `path` as the draft file of `jobId`: moved (`move`, same file system) or copied. No room
   * for the copy is SpoolFullError, and no part of it stays.
   */
  keep(jobId: string, path: string, options: { move: boolean }): Promise<void>;
  pathOf(jobId: string): string;
  remove(jobId: string): Promise<void>;
  /**
   * Removes the files whose job is no longer a draft (started, failed, deleted: at once, whatever
   * their age) and those older than `graceMs` whose job does not exist (a younger one may belong
   * to a draft whose record is being written right now); returns how many.
   */
  sweep(stateOf: (jobId: string) => Promise<DraftState>, graceMs: number): Promise<number>;
}

export function createDraftFiles(dir: string): DraftFiles {
  const pathOf = (jobId: string) => join(dir, `draft-${jobId}.upload`);
  return {
    pathOf,
    async keep(jobId, path, { move }) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const target = pathOf(jobId);
      if (move) {
        try {
          await rename(path, target);
          return;
        } catch (error) {
          // Another file system: copy instead (and leave the caller's file to the caller).
          if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        }
      }
      try {
        await copyFile(path, target, constants.COPYFILE_EXCL);
        await chmod(target, 0o600);
      } catch (error) {
        // A part copied onto a full disk is not left behind; the client may try again later.
        await rm(target, { force: true });
        throw spoolFullIfDiskFull(error);
      }
    },
    async remove(jobId) {
      await rm(pathOf(jobId), { force: true });
    },
    async sweep(stateOf, graceMs) {
      return sweepFolder(dir, async (name, path) => {
        const match = DRAFT_FILE.exec(name);
        if (!match) return false;
        const state = await stateOf(match[1]);
        if (state === 'draft') return false;
        if (state !== 'no_record') return true;
        const modified = await modifiedAtMs(path);
        return modified !== null && modified <= Date.now() - graceMs;
      });
    },
  };
}
