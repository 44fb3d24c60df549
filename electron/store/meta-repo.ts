import type { Database, Statement } from 'better-sqlite3';

/** Named facts about the data folder (instance id, current owner), one text value each. */
export class MetaRepo {
  readonly #get: Statement;
  readonly #set: Statement;

  constructor(db: Database) {
    this.#get = db.prepare('SELECT value FROM meta WHERE name = ?');
    this.#set = db.prepare(
      'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
  }

  get(name: string): string | null {
    const row = this.#get.get(name) as { value: unknown } | undefined;
    return typeof row?.value === 'string' ? row.value : null;
  }

  set(name: string, value: string): void {
    this.#set.run(name, value);
  }
}
