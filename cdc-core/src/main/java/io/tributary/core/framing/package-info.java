/**
 * Transaction framing of a shard's binlog stream: which event opens, continues or ends a transaction.
 * {@link io.tributary.core.framing.TransactionFramer} decides it once per event, on the reader's thread; the
 * {@link io.tributary.core.framing.Boundary} it finds travels with the event, so later stages act on it
 * without reading the event again.
 */
package io.tributary.core.framing;
