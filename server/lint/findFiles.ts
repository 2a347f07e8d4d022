// The files a `cuda-kernel-dev lint` of some paths takes: a path named is taken whatever it is; a folder
// is walked for .cu/.cuh, and for headers with device code. Symbolic links are followed while they lead
// inside the folders walked (by real path: a loop or a second name for a folder or file is taken once,
// under its real name when the walk meets that too); a link leading out of them is not followed (name it
// to lint it). What the walk passed over is returned, not dropped: an unreadable folder or a dangling
// .cu link means the run is incomplete; the rest is said as a note.
import { readdirSync, readFileSync, readlinkSync, realpathSync, statSync, type Dirent } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { errorMessage } from "../util/errorMessage";

const SKIP_DIRS = new Set(["node_modules", ".git", "build", "dist", "__pycache__"]);
const CUDA_FILE = /\.cuh?$/;
/** C++ headers that hold kernels in many projects (flash-attention's, apex's, marlin's). */
const HEADER_FILE = /\.(?:h|hpp|hxx|inl)$/;
const DEVICE_CODE = /\b__(?:global|device)__\b/;

/**
 * A header is linted when its text defines CUDA device code: a cheap look before any parse. One that
 * cannot be read is taken, so the lint says it could not be read instead of passing it over.
 */
function hasDeviceCode(file: string): boolean {
  try {
    return DEVICE_CODE.test(readFileSync(file, "latin1"));
  } catch {
    return true;
  }
}

/** A path a folder walk did not take, and why. */
export interface WalkSkip {
  path: string;
  reason: string;
  /** true when something that should have been linted was not (an unreadable folder), false for policy. */
  incomplete: boolean;
}

export interface CudaFiles {
  /** Sorted absolute paths. */
  files: string[];
  skipped: WalkSkip[];
}

const inside = (dir: string, p: string): boolean => {
  const rel = relative(dir, p);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
};

/** One walk: the files found, the real paths taken, the links met (followed after the real tree). */
class Walk {
  readonly files = new Map<string, string>();
  readonly skipped: WalkSkip[] = [];
  private readonly dirs = new Map<string, string>();
  private readonly links: string[] = [];
  private readonly roots: string[] = [];

  constructor(private readonly display: (p: string) => string) {}

  root(dir: string): void {
    this.roots.push(realOr(dir));
    this.folder(dir);
  }

  /** Walks the real folders, then follows the links met there (and in the folders they lead to). */
  finish(): void {
    for (let link = this.links.shift(); link !== undefined; link = this.links.shift()) this.link(link);
  }

  /** A file taken (once per real file). */
  file(path: string): void {
    const real = realOr(path);
    const first = this.files.get(real);
    if (first === undefined) this.files.set(real, path);
    else this.note(path, `a link to a file taken already (${this.display(first)})`);
  }

  private folder(dir: string): void {
    const real = realOr(dir);
    const first = this.dirs.get(real);
    if (first !== undefined) {
      this.note(dir, `a link to a folder walked already (${this.display(first)}): not walked twice`);
      return;
    }
    this.dirs.set(real, dir);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      this.skipped.push({
        path: dir,
        reason: `cannot read the folder: ${errorMessage(err)}`,
        incomplete: true,
      });
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(dir, e.name);
      if (e.isSymbolicLink()) this.links.push(path);
      else if (e.isDirectory()) {
        if (takesFolder(e.name)) this.folder(path);
      } else if (e.isFile() && takesFile(e.name, path)) this.file(path);
    }
  }

  private link(path: string): void {
    const name = path.slice(path.lastIndexOf(sep) + 1);
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      // Only a link the walk would have taken as a source is worth a word: it was meant to be linted.
      if (CUDA_FILE.test(name) || HEADER_FILE.test(name))
        this.skipped.push({
          path,
          reason: `cannot read: a link to nothing (${target(path)})`,
          incomplete: true,
        });
      return;
    }
    let isDir: boolean;
    try {
      isDir = statSync(real).isDirectory();
    } catch (err) {
      this.skipped.push({ path, reason: `cannot read: ${errorMessage(err)}`, incomplete: true });
      return;
    }
    if (isDir ? !takesFolder(name) : !takesFile(name, real)) return;
    if (!this.roots.some((r) => inside(r, real)))
      this.note(path, `a link out of the folders walked (to ${real}): not followed; name it to lint it`);
    else if (isDir) this.folder(path);
    else this.file(path);
  }

  private note(path: string, reason: string): void {
    this.skipped.push({ path, reason, incomplete: false });
  }
}

const takesFolder = (name: string): boolean => !SKIP_DIRS.has(name) && !name.startsWith(".");
const takesFile = (name: string, path: string): boolean =>
  CUDA_FILE.test(name) || (HEADER_FILE.test(name) && hasDeviceCode(path));

/** The real path, or the path itself when it cannot be resolved (the read that follows says why). */
function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function target(link: string): string {
  try {
    return readlinkSync(link);
  } catch {
    return "?";
  }
}

/**
 * Expands paths to the files they name or contain, sorted: .cu/.cuh, and headers (.h/.hpp/.hxx/.inl)
 * that define __global__ or __device__ code. A missing path throws; what a folder walk passed over
 * (an unreadable folder, links: see above) is in `skipped`, and the walk goes on.
 */
export function findCudaFiles(paths: readonly string[]): CudaFiles {
  const named = paths.map((p) => resolve(p));
  const display = (p: string): string => {
    const base = named.find((n) => inside(n, p));
    return base === undefined ? p : relative(base, p) || ".";
  };
  const walk = new Walk(display);
  for (const [i, abs] of named.entries()) {
    let st;
    try {
      st = statSync(abs);
    } catch {
      throw new Error(`no such file or folder: ${paths[i]}`);
    }
    if (st.isDirectory()) walk.root(abs);
    else walk.file(abs);
  }
  walk.finish();
  return { files: [...new Set(walk.files.values())].sort(), skipped: walk.skipped };
}

/** findCudaFiles' files alone. */
export const collectCudaFiles = (paths: readonly string[]): string[] => findCudaFiles(paths).files;
