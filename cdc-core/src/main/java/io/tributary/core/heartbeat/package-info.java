/**
 * The heartbeats that make consistent cuts: {@link io.tributary.core.heartbeat.HeartbeatWriter} writes one shared,
 * increasing value into {@code __cdc__.__cdc_heartbeat__} on every shard; the sorter reads it back from the
 * shard binlogs. Several writers (twins) make one sequence of beats: each beat is made under a user lock on the
 * first shard, and a row only moves up.
 */
package io.tributary.core.heartbeat;
