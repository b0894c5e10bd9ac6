/**
 * The transaction buffer and its spill (ARCHITECTURE.md, "Spilling (storage.persist)", invariant 7):
 * {@link io.tributary.storage.buffer.TransactionBuffer} holds shard transactions event by event until the
 * sorter may emit them, in memory up to its own byte budget and in the RocksDB
 * {@link io.tributary.storage.buffer.SpillStore} beyond it, as the {@code storage.*} keys declared in
 * {@link io.tributary.storage.buffer.PersistConfig} say; {@link io.tributary.storage.buffer.LivePersistSettings}
 * lets a running daemon change them.
 */
package io.tributary.storage.buffer;
