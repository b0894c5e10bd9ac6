/**
 * How the stages of the data path hand work over: {@link io.tributary.storage.handoff.HandOff}, a bounded LMAX
 * Disruptor ring with one consumer thread that blocks when full, so a slow stage holds back the one before it.
 * Its own package because both the pipeline's wiring and the merge stage (its append ring) use it.
 */
package io.tributary.storage.handoff;
