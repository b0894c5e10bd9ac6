/**
 * The wiring of the data path: {@link io.tributary.storage.pipeline.GlobalBinlogPipeline} starts a reader per
 * shard and hands their events to the merge thread, and merged transactions to the append thread, over
 * {@link io.tributary.storage.handoff.HandOff}s: bounded LMAX Disruptor rings that block when full, so a slow
 * stage holds back the one before it.
 */
package io.tributary.storage.pipeline;
