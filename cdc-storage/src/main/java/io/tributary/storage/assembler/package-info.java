/**
 * Step 3 of the data path: one {@link io.tributary.storage.assembler.ShardStreamAssembler} per shard puts the
 * reader's framed events into buffered shard transactions (bytes, no decoding where the framer's boundary says
 * enough) and hands the sorter its units.
 */
package io.tributary.storage.assembler;
