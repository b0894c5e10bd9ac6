package io.tributary.storage.buffer;

/** {@code storage.persist.mode}: how the transaction buffer uses the spill store when persisting is on. */
public enum PersistMode {
    /** Memory first; disk for large transactions and under memory pressure. */
    AUTO,
    /** Every buffered transaction goes to disk. */
    FORCE
}
