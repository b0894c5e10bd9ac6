/**
 * How the stages of the data path hand work over: bounded LMAX Disruptor rings that block when full
 * ({@link io.tributary.storage.pipeline.HandOff}), wired readers -> sorter/merger -> writer in
 * {@link io.tributary.storage.pipeline.Pipeline}.
 */
package io.tributary.storage.pipeline;
