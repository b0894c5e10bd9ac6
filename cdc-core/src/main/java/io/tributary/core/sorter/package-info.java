/**
 * The global order, step 4 of the data path: {@link io.tributary.core.sorter.GlobalSorter} takes each shard's
 * units (transactions, XA branches, heartbeats) and emits them in one order. Its parts, each the owner of one
 * invariant: {@link io.tributary.core.sorter.Lane} keeps a shard's order and its heartbeat windows,
 * {@link io.tributary.core.sorter.XaUses} groups the branches of each use of a gtrid and says when a use is
 * complete, {@link io.tributary.core.sorter.CycleBreaker} breaks a cycle among crossing XA commits by a fixed
 * rule, and {@link io.tributary.core.sorter.CheckpointLedger} says where each shard resumes after what was
 * emitted; {@link io.tributary.core.sorter.Stretches} logs the stretches without heartbeats that commit timestamps
 * order. No part reads a clock: the order is a function of the shard binlogs alone.
 */
package io.tributary.core.sorter;
