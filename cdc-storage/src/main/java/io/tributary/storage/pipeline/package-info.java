/**
 * How the stages of the data path hand work over: bounded LMAX Disruptor rings that block when full
 * ({@link io.tributary.storage.pipeline.HandOff}), so a slow stage holds back the one before it.
 */
package io.tributary.storage.pipeline;
