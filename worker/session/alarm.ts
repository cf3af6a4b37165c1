// A session object's one alarm, as this instance knows it. The object (session-do.ts) decides when
// it must wake (expiry, the outbox's delivery, settling a call in flight); this remembers what it
// last set, so an alarm already set earlier stays and a busy session does not rewrite its alarm on
// every call. Each setting is issued with no await before it: storage calls run in issue order, so
// the last one issued reflects the latest state.

export class SessionAlarm {
  /** the alarm this instance last set (null: none; undefined: not known since the object started or it fired) */
  private at: number | null | undefined;
  private readonly storage: DurableObjectStorage;

  constructor(storage: DurableObjectStorage) {
    this.storage = storage;
  }

  /** An alarm at `at` at the latest (an earlier one stays). */
  wakeBy(at: number): Promise<void> {
    if (typeof this.at === "number" && this.at <= at) return Promise.resolve();
    this.at = at;
    return this.storage.setAlarm(at);
  }

  /** The alarm at `at` (Infinity: none), replacing a later one; an earlier one stays. */
  plan(at: number): Promise<void> {
    if (at !== Infinity) return this.wakeBy(at);
    this.at = null;
    return this.storage.deleteAlarm();
  }

  /** Exactly at `at`: a new session's expiry. */
  set(at: number): Promise<void> {
    this.at = at;
    return this.storage.setAlarm(at);
  }

  /** The alarm fired: whatever is set next is not known yet. */
  fired(): void {
    this.at = undefined;
  }

  /** The storage was dropped (deleteAll removes the alarm too). */
  dropped(): void {
    this.at = null;
  }
}
