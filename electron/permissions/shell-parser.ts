import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Language, Parser, type Node } from 'web-tree-sitter';

/** A parsed command line, as far as the gate cares: its tree, or the fact that it would not parse. */
export interface ParsedCommand {
  root: Node;
  hasError: boolean;
}

let parser: Parser | null = null;

/**
 * Loads the bash grammar (tree-sitter-bash's .wasm) once. Until it is loaded the gate has
 * no parser, and every decision that needs one is "ask".
 */
export async function loadShellParser(wasmPath?: string): Promise<void> {
  if (!parser) {
    await Parser.init();
    const path = wasmPath ?? grammarPath();
    const language = await Language.load(path);
    const created = new Parser();
    created.setLanguage(language);
    parser = created;
  }
}

/** Beside the built bundle (out/main, and in the packaged app), else from the dev dependency. */
function grammarPath(): string {
  // The bundler may put this code in out/main/chunks/: look there and one folder up.
  for (const folder of [import.meta.dirname, join(import.meta.dirname, '..')]) {
    const shipped = join(folder, 'tree-sitter-bash.wasm');
    if (existsSync(shipped)) return shipped;
  }
  return createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
}

/**
 * Parses with the grammar once loaded and hands the tree to `read`; null before that (the gate
 * then asks). The tree lives in WebAssembly memory, so it is freed once `read` is done: its
 * nodes must not be kept.
 */
export function parseShell<T>(command: string, read: (parsed: ParsedCommand) => T): T | null {
  const tree = parser?.parse(command);
  if (!tree) return null;
  try {
    return read({ root: tree.rootNode, hasError: tree.rootNode.hasError });
  } finally {
    tree.delete();
  }
}
